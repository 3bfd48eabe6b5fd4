#!/usr/bin/env node
// resources.mjs: checks chromafs's MCP resources with the official
// TypeScript SDK's streamable HTTP client against `chromafs serve --mcp`.
// It lists the resources page by page and reads each one against the source
// files on disk (the folder that was ingested), lists the resource
// templates, reads URIs that name no page, then writes "ready" on standard
// error and waits for notifications/resources/list_changed (the test then
// ingests a changed folder); when it comes, it lists and reads everything
// again against the changed folder. Pages named with --private must never
// be listed, and read as a missing page does.
//
// Usage:
//   node resources.mjs --docs DIR --after DIR [--private SLUG]... --url URL [--wait SECONDS]
//
// It prints a JSON report on standard output (as check.mjs does) and exits
// 0 when every check passed, 1 when one failed, 2 on a usage error.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

function usage(msg) {
  process.stderr.write(`resources.mjs: ${msg}\n` +
    'usage: node resources.mjs --docs DIR --after DIR [--private SLUG]... --url URL [--wait SECONDS]\n');
  process.exit(2);
}

const o = { private: [], wait: 60 };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  const val = () => {
    if (i + 1 >= argv.length) usage(`${a} needs a value`);
    return argv[++i];
  };
  switch (a) {
    case '--docs': o.docs = val(); break;
    case '--after': o.after = val(); break;
    case '--private': o.private.push(val().replace(/^\/+/, '')); break;
    case '--url': o.url = val(); break;
    case '--wait': o.wait = Number(val()); break;
    default: usage(`unknown argument ${a}`);
  }
}
if (!o.docs || !o.after || !o.url) usage('--docs, --after and --url are required');

// walk returns the files under root, slug -> content (a Buffer).
function walk(root) {
  const files = new Map();
  const rec = (dir, prefix) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const slug = prefix ? `${prefix}/${e.name}` : e.name;
      if (e.isDirectory()) rec(join(dir, e.name), slug);
      else if (e.isFile()) files.set(slug, readFileSync(join(dir, e.name)));
    }
  };
  rec(root, '');
  return files;
}

const report = { transport: 'http', server: null, tools: [], calls: 0, checks: 0, passed: 0, failures: [] };
const q = (s) => JSON.stringify(s);

function check(name, ok, detail) {
  report.checks++;
  if (ok) {
    report.passed++;
    return true;
  }
  const d = typeof detail === 'function' ? detail() : detail;
  const s = String(d ?? '').slice(0, 2000);
  report.failures.push({ check: name, detail: s });
  process.stderr.write(`FAIL ${name}: ${s}\n`);
  return false;
}

// uriOf is the URI of a page as RFC 3986 encodes its path (unreserved
// characters and / as they are).
const uriOf = (slug) => 'chromafs:///' + [...Buffer.from(slug, 'utf8')].map((c) => {
  const ch = String.fromCharCode(c);
  return /[A-Za-z0-9\-._~/]/.test(ch) ? ch : '%' + c.toString(16).toUpperCase().padStart(2, '0');
}).join('');

const mimeOf = (slug) => (/\.(md|mdx)$/i.test(slug) ? 'text/markdown' : 'text/plain');

async function listAll(client, label) {
  const all = [];
  let cursor;
  for (;;) {
    report.calls++;
    const res = await client.listResources(cursor ? { cursor } : {});
    check(`${label}: an answer holds at most 500 resources`, res.resources.length <= 500, () => `${res.resources.length}`);
    all.push(...res.resources);
    if (!res.nextCursor) return all;
    cursor = res.nextCursor;
  }
}

async function readErr(client, uri) {
  report.calls++;
  try {
    const res = await client.readResource({ uri });
    return { ok: true, text: res.contents?.[0]?.text };
  } catch (err) {
    return { ok: false, code: err?.code, message: String(err?.message ?? err) };
  }
}

// checkView lists and reads every resource against the visible files.
async function checkView(client, label, files) {
  const visible = new Map([...files].filter(([slug]) => !o.private.includes(slug)));
  const got = await listAll(client, label);
  const names = got.map((r) => r.name).sort();
  const want = [...visible.keys()].map((s) => '/' + s).sort();
  check(`${label}: resources/list names the visible pages`, q(names) === q(want), () => `got ${q(names)}\nwant ${q(want)}`);
  for (const r of got) {
    const slug = r.name.replace(/^\//, '');
    const content = visible.get(slug);
    if (!content) continue;
    check(`${label}: ${r.name} has its URI`, r.uri === uriOf(slug), () => `${r.uri}, want ${uriOf(slug)}`);
    check(`${label}: ${r.name} has its MIME type`, r.mimeType === mimeOf(slug), () => q(r));
    check(`${label}: ${r.name} has its size`, r.size === undefined || r.size === content.length || (content.length === 0 && !r.size), () => `${r.size}, want ${content.length}`);
    const res = await readErr(client, r.uri);
    check(`${label}: resources/read ${r.uri} is the file`, res.ok && res.text === content.toString('utf8'),
      () => `${q(res)}\nwant ${q(content.toString('utf8').slice(0, 300))}`);
  }
  for (const slug of o.private) {
    check(`${label}: private ${slug} is not listed`, !names.includes('/' + slug), () => q(names));
    const i = slug.lastIndexOf('/');
    const twin = slug.slice(0, i + 1) + 'zz-missing-' + slug.slice(i + 1);
    const a = await readErr(client, uriOf(slug));
    const b = await readErr(client, uriOf(twin));
    check(`${label}: private ${slug} reads as a missing page`,
      !a.ok && !b.ok && a.code === b.code && a.message.split(slug).join('P') === b.message.split(twin).join('P'),
      () => `private ${q(a)}\nmissing ${q(b)}`);
  }
  return got;
}

async function main() {
  const before = walk(o.docs);
  const after = walk(o.after);
  const client = new Client({ name: 'chromafs-resources-check', version: '1' });
  let notified = 0;
  let wake = null;
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
    notified++;
    if (wake) wake();
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(o.url)));
  report.server = client.getServerVersion() ?? null;
  const caps = client.getServerCapabilities() ?? {};
  check('the server declares resources with listChanged', caps.resources?.listChanged === true, () => q(caps));

  await checkView(client, 'before', before);
  report.calls++;
  const tpl = await client.listResourceTemplates();
  check('resources/templates/list has chromafs:///{+path}',
    tpl.resourceTemplates.some((t) => t.uriTemplate === 'chromafs:///{+path}'), () => q(tpl));
  for (const [uri, re] of [
    ['file:///index.md', /not a chromafs URI/],
    ['chromafs://host/index.md', /three slashes and no host/],
    ['chromafs:///guide/../index.md', /"\.\."/],
    ['chromafs:///%zz.md', /two hexadecimal digits/],
  ]) {
    const r = await readErr(client, uri);
    check(`resources/read ${uri} is an error that says why`, !r.ok && re.test(r.message), () => q(r));
  }
  const dir = [...before.keys()].find((s) => s.includes('/') && !o.private.includes(s));
  if (dir) {
    const d = dir.slice(0, dir.indexOf('/'));
    const r = await readErr(client, `chromafs:///${d}`);
    check(`resources/read of the directory /${d} is an error`, !r.ok && /is a directory/.test(r.message), () => q(r));
  }
  check('no notification before the change', notified === 0, () => `${notified}`);

  // The test ingests the changed folder once it reads this line.
  process.stderr.write('ready\n');
  const got = await new Promise((resolve) => {
    if (notified > 0) return resolve(true);
    const t = setTimeout(() => resolve(false), o.wait * 1000);
    wake = () => { clearTimeout(t); resolve(true); };
  });
  check(`notifications/resources/list_changed within ${o.wait} s of the ingest`, got, () => 'none came');
  if (got) await checkView(client, 'after', after);
  await client.close();
}

try {
  await main();
} catch (err) {
  check('the run completes', false, () => String(err?.stack ?? err));
}
process.stdout.write(JSON.stringify(report, null, 2) + '\n');
process.exitCode = report.failures.length === 0 && report.checks > 0 ? 0 : 1;
