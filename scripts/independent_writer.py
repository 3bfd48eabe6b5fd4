#!/usr/bin/env python3
"""Load a docs folder into Chroma the way other writers do, independently of chromafs.

This is a test client: it shares no code with chromafs and talks to Chroma's
REST API (v2) with the Python standard library only. It writes the layout of
the original system, with the quirks chromafs must cope with:

  * chunks cut at random byte offsets (mid-line, mid-word, never inside a
    UTF-8 sequence), so text straddles chunk boundaries;
  * chunk records inserted in shuffled order, in several upsert batches;
  * chunk metadata {"page_slug": slug, "chunk_index": i} and nothing else;
  * the path tree as gzip-compressed, base64-encoded JSON
    {slug: {"isPublic": bool, "groups": [...]}} without sizes or hashes;
  * private subtrees (--private PREFIX=GROUP, repeatable);
  * embeddings: random 8-dimension vectors by default, which carry no
    meaning and are not recorded in the collection's configuration; with
    --embedding ngram, the chunks are embedded with chromafs's word n-gram
    function (reimplemented here from its specification, see ngram_vector)
    and the collection is created with that function recorded in its
    configuration, {"embedding_function": {"type": "known", "name":
    "chromafs_ngram", "config": {"dim": 512}}}, as Chroma's clients record
    theirs, so that a reader can embed queries the way the writer embedded
    the documents.

Usage:
  independent_writer.py --url http://127.0.0.1:8000 --collection docs \\
      --private internal/=staff --seed 1 [--embedding ngram] DIR
"""

import argparse
import base64
import gzip
import json
import os
import random
import math
import struct
import sys
import unicodedata
import urllib.error
import urllib.request


def request(method, url, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=120) as resp:
            raw = resp.read()
            return json.loads(raw) if raw else None
    except urllib.error.HTTPError as e:
        sys.exit(f"{method} {url}: {e.code} {e.read().decode(errors='replace')}")


NGRAM_NAME = "chromafs_ngram"
NGRAM_DIM = 512
FNV_OFFSET = 14695981039346656037
FNV_PRIME = 1099511628211


def fnv1a64(data):
    h = FNV_OFFSET
    for b in data:
        h ^= b
        h = (h * FNV_PRIME) & 0xFFFFFFFFFFFFFFFF
    return h


def is_word_char(c):
    """A letter (category L*) or a decimal digit (Nd)."""
    cat = unicodedata.category(c)
    return cat[0] == "L" or cat == "Nd"


def lower(c):
    """The simple (one-character) lower case of c; str.lower's full mapping
    gives U+0130 two characters, and str.lower of a whole string applies
    the final-sigma rule, which simple case mapping does not."""
    if c == "\u0130":
        return "i"
    low = c.lower()
    return low if len(low) == 1 else c


def ngram_vector(text, dim=NGRAM_DIM):
    """chromafs's word n-gram embedding: the text is lower-cased and cut into
    words (runs of letters and digits); every word and every pair of
    consecutive words (joined by a space) is hashed with 64-bit FNV-1a of
    its UTF-8 bytes, which adds +1 (top bit clear) or -1 (top bit set) to
    dimension hash % dim; the vector is normalised to length 1, and a text
    without words is (1, 0, ...). Values are rounded to 32-bit floats."""
    words, cur = [], []
    for c in text:
        c = lower(c)
        if is_word_char(c):
            cur.append(c)
        elif cur:
            words.append("".join(cur))
            cur = []
    if cur:
        words.append("".join(cur))
    v = [0.0] * dim
    for i, w in enumerate(words):
        feats = [w] if i == 0 else [w, words[i - 1] + " " + w]
        for f in feats:
            x = fnv1a64(f.encode("utf-8"))
            v[x % dim] += -1.0 if x >> 63 else 1.0
    norm = math.sqrt(sum(x * x for x in v))
    if norm == 0:
        v[0] = 1.0
        return v
    return [struct.unpack("f", struct.pack("f", x / norm))[0] for x in v]


def cut(content, rng, lo, hi):
    """Cut bytes into chunks of random sizes in [lo, hi] at UTF-8 boundaries."""
    chunks, i = [], 0
    while i < len(content):
        j = min(len(content), i + rng.randint(lo, hi))
        while j < len(content) and (content[j] & 0xC0) == 0x80:
            j += 1
        chunks.append(content[i:j])
        i = j
    return chunks or [b""]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", required=True)
    ap.add_argument("--collection", required=True)
    ap.add_argument("--private", action="append", default=[], metavar="PREFIX=GROUP")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--chunk-min", type=int, default=200)
    ap.add_argument("--chunk-max", type=int, default=900)
    ap.add_argument("--batch", type=int, default=250)
    ap.add_argument("--embedding", choices=["random", "ngram"], default="random",
                    help="random 8-dimension vectors (default), or chromafs's word n-gram function, recorded in the configuration")
    ap.add_argument("dir")
    args = ap.parse_args()

    rng = random.Random(args.seed)
    private = [p.split("=", 1) for p in args.private]

    base = args.url.rstrip("/") + "/api/v2/tenants/default_tenant/databases/default_database"
    create = {"name": args.collection, "get_or_create": True}
    if args.embedding == "ngram":
        create["configuration"] = {"embedding_function": {
            "type": "known", "name": NGRAM_NAME, "config": {"dim": NGRAM_DIM}}}
    coll = request("POST", base + "/collections", create)
    cid = coll["id"]

    records, tree = [], {}
    for root, dirs, files in os.walk(args.dir):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(root, name)
            slug = os.path.relpath(path, args.dir).replace(os.sep, "/")
            with open(path, "rb") as f:
                content = f.read()
            try:
                content.decode("utf-8")
            except UnicodeDecodeError:
                continue
            entry = {"isPublic": True, "groups": []}
            for prefix, group in private:
                if slug.startswith(prefix):
                    entry = {"isPublic": False, "groups": [group]}
            tree[slug] = entry
            for i, chunk in enumerate(cut(content, rng, args.chunk_min, args.chunk_max)):
                records.append((f"{slug}::{i}", chunk.decode("utf-8"), {"page_slug": slug, "chunk_index": i}))

    rng.shuffle(records)
    dim = 8 if args.embedding == "random" else NGRAM_DIM

    def embed(text):
        if args.embedding == "ngram":
            return ngram_vector(text)
        return [rng.random() for _ in range(dim)]

    for k in range(0, len(records), args.batch):
        batch = records[k:k + args.batch]
        request("POST", f"{base}/collections/{cid}/upsert", {
            "ids": [r[0] for r in batch],
            "documents": [r[1] for r in batch],
            "metadatas": [r[2] for r in batch],
            "embeddings": [embed(r[1]) for r in batch],
        })
    doc = base64.b64encode(gzip.compress(json.dumps(tree).encode())).decode()
    request("POST", f"{base}/collections/{cid}/upsert", {
        "ids": ["__path_tree__"],
        "documents": [doc],
        "metadatas": [{"type": "path_tree"}],
        "embeddings": [[0.0] * dim],
    })
    print(f"wrote {len(tree)} pages in {len(records)} chunks to {args.collection}")


if __name__ == "__main__":
    main()
