// write.mjs writes one docs folder into a new Chroma collection the way a
// docs team would with LangChain.js or LlamaIndex.TS, through the real npm
// packages, so that chromafs's tests read the layout those libraries
// really write. Usage:
//
//	node write.mjs --url http://127.0.0.1:PORT --collection NAME \
//	    --writer langchain|llamaindex|llamaindex-text \
//	    --mode default|overlap0 --dir DOCS
//
// Writers:
//
//   - langchain: DirectoryLoader with a TextLoader for .md, .mdx and .txt
//     (source is the absolute path the loader resolves), split by
//     RecursiveCharacterTextSplitter (chunkSize 1000, chunkOverlap 200, or
//     0 in mode overlap0) with splitDocuments, stored by
//     @langchain/community's Chroma store, addDocuments in batches of 1,000 (uuid v1 ids; loc.lines
//     flattened to locFrom/locTo).
//   - llamaindex: SimpleDirectoryReader with its default readers (the
//     MarkdownReader for .md: one Document per heading section, links and
//     images removed; TextFileReader for the rest), split by the default
//     SentenceSplitter (1024 tokens, overlap 200, or 0 in mode overlap0),
//     stored by @llamaindex/chroma's ChromaVectorStore through
//     VectorStoreIndex.fromDocuments.
//   - llamaindex-text: as llamaindex, with TextFileReader for every file,
//     so that each Document is a whole file's text.
//
// No network: embeddings are a deterministic hash of the text (32
// dimensions), so nothing calls an embedding API or downloads a model.
//
// On success it prints one JSON line: the writer, the mode, the
// collection, the number of chunks written and the versions of the
// packages used. On failure it prints the error to stderr and exits 1.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const here = path.dirname(fileURLToPath(import.meta.url));
const DIMS = 32;

// hashVector is the embedding of text: DIMS values from SHA-256 digests
// of the text, normalised to unit length. Equal texts embed equally.
function hashVector(text) {
  const v = [];
  for (let i = 0; v.length < DIMS; i++) {
    const d = createHash("sha256").update(`${i}\u0000${text}`).digest();
    for (const b of d) {
      if (v.length < DIMS) v.push(b / 255 - 0.5);
    }
  }
  const n = Math.hypot(...v) || 1;
  return v.map((x) => x / n);
}

// version returns the version of an installed package, read from its
// package.json (some packages do not export it).
function version(pkg) {
  try {
    const p = path.join(here, "node_modules", ...pkg.split("/"), "package.json");
    return JSON.parse(readFileSync(p, "utf8")).version;
  } catch {
    return "";
  }
}

async function writeLangChain({ url, collection, mode, dir }) {
  const { Embeddings } = await import("@langchain/core/embeddings");
  const { DirectoryLoader } = await import("@langchain/classic/document_loaders/fs/directory");
  const { TextLoader } = await import("@langchain/classic/document_loaders/fs/text");
  const { RecursiveCharacterTextSplitter } = await import("@langchain/textsplitters");
  const { Chroma } = await import("@langchain/community/vectorstores/chroma");

  class HashEmbeddings extends Embeddings {
    async embedDocuments(texts) {
      return texts.map(hashVector);
    }
    async embedQuery(text) {
      return hashVector(text);
    }
  }

  const text = (p) => new TextLoader(p);
  const loader = new DirectoryLoader(dir, { ".md": text, ".mdx": text, ".txt": text });
  const docs = await loader.load();
  const splitter = new RecursiveCharacterTextSplitter(mode === "overlap0" ? { chunkOverlap: 0 } : {});
  const chunks = await splitter.splitDocuments(docs);
  // In batches, as a team with a large folder must: Chroma refuses an add
  // of more records than its max batch size (5,461 on 1.0), which one
  // fromDocuments of a whole site exceeds.
  const store = new Chroma(new HashEmbeddings(), { url, collectionName: collection });
  for (let i = 0; i < chunks.length; i += 1000) {
    await store.addDocuments(chunks.slice(i, i + 1000));
  }
  return {
    files: docs.length,
    chunks: chunks.length,
    chunkSize: splitter.chunkSize,
    chunkOverlap: splitter.chunkOverlap,
    versions: Object.fromEntries(
      ["@langchain/core", "@langchain/classic", "@langchain/textsplitters", "@langchain/community", "chromadb"].map((p) => [p, version(p)]),
    ),
  };
}

async function writeLlamaIndex({ url, collection, mode, dir, textOnly }) {
  const { BaseEmbedding, Settings, SentenceSplitter, VectorStoreIndex, storageContextFromDefaults } = await import("llamaindex");
  const { SimpleDirectoryReader } = await import("@llamaindex/readers/directory");
  const { TextFileReader } = await import("@llamaindex/readers/text");
  const { ChromaVectorStore } = await import("@llamaindex/chroma");

  class HashEmbedding extends BaseEmbedding {
    async getTextEmbedding(text) {
      return hashVector(text);
    }
  }
  // Settings.embedModel reaches the index (it is stored in
  // @llamaindex/core's settings); Settings.nodeParser does not:
  // llamaindex 0.12.1 bundles a second copy of its GlobalSettings into
  // llamaindex/indices, whose VectorStoreIndex.fromDocuments reads its own
  // nodeParser. So mode overlap0 splits explicitly and builds the index
  // from the nodes, the documented alternative.
  Settings.embedModel = new HashEmbedding();

  const reader = new SimpleDirectoryReader();
  const docs = await reader.loadData(textOnly ? { directoryPath: dir, overrideReader: new TextFileReader() } : { directoryPath: dir });
  const vectorStore = new ChromaVectorStore({ collectionName: collection, chromaClientParams: { path: url } });
  const storageContext = await storageContextFromDefaults({ vectorStore });
  let splitter;
  if (mode === "overlap0") {
    splitter = new SentenceSplitter({ chunkOverlap: 0 });
    const nodes = await splitter.getNodesFromDocuments(docs);
    await VectorStoreIndex.init({ nodes, storageContext });
  } else {
    splitter = new SentenceSplitter(); // what fromDocuments uses by default
    await VectorStoreIndex.fromDocuments(docs, { storageContext });
  }
  const coll = await vectorStore.getCollection();
  return {
    files: new Set(docs.map((d) => d.metadata.file_path)).size,
    documents: docs.length,
    chunks: await coll.count(),
    chunkSize: splitter.chunkSize,
    chunkOverlap: splitter.chunkOverlap,
    versions: Object.fromEntries(
      ["llamaindex", "@llamaindex/core", "@llamaindex/readers", "@llamaindex/chroma", "chromadb"].map((p) => [p, version(p)]),
    ),
  };
}

async function main() {
  const { values } = parseArgs({
    options: {
      url: { type: "string" },
      collection: { type: "string" },
      writer: { type: "string" },
      mode: { type: "string", default: "default" },
      dir: { type: "string" },
    },
    strict: true,
  });
  for (const k of ["url", "collection", "writer", "dir"]) {
    if (!values[k]) throw new Error(`--${k} is required`);
  }
  if (!["default", "overlap0"].includes(values.mode)) {
    throw new Error(`--mode ${values.mode}: want default or overlap0`);
  }
  const args = { ...values, dir: path.resolve(values.dir) };
  let out;
  switch (values.writer) {
    case "langchain":
      out = await writeLangChain(args);
      break;
    case "llamaindex":
      out = await writeLlamaIndex(args);
      break;
    case "llamaindex-text":
      out = await writeLlamaIndex({ ...args, textOnly: true });
      break;
    default:
      throw new Error(`--writer ${values.writer}: want langchain, llamaindex or llamaindex-text`);
  }
  process.stdout.write(JSON.stringify({ writer: values.writer, mode: values.mode, collection: values.collection, ...out }) + "\n");
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err?.stack ?? String(err));
    process.exit(1);
  },
);
