#!/usr/bin/env node
// check.mjs: an independent MCP client for chromafs. It connects with the
// official TypeScript SDK to `chromafs mcp` (stdio) or `chromafs serve --mcp`
// (streamable HTTP), lists the tools, calls each of them, and checks every
// answer against the source files on disk: the directory that was ingested
// into the collection. Pages named with --private must be invisible to the
// connected user: every tool answers for them exactly as for a path that
// does not exist, and no answer of the run mentions them or quotes them.
//
// Usage:
//   node check.mjs --docs DIR [--private SLUG]... --stdio COMMAND [ARG]...
//   node check.mjs --docs DIR [--private SLUG]... --url URL [--token TOKEN | --basic USER:PASS]
//
// --transcript FILE writes every call of the run and its answer to FILE
// (JSON), for reading what the server said.
// SLUG is a path relative to DIR (a leading / is allowed). --stdio takes
// the rest of the command line as the server's command and arguments.
//
// It prints a JSON report on standard output and exits 0 when every check
// passed, 1 when one failed (each failure is also written to standard error
// as "FAIL <check>: <detail>"), 2 on a usage error.

import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

function usage(msg) {
  process.stderr.write(`check.mjs: ${msg}\n` +
    'usage: node check.mjs --docs DIR [--private SLUG]... [--transcript FILE] (--stdio COMMAND [ARG]... | --url URL [--token TOKEN | --basic USER:PASS])\n');
  process.exit(2);
}

function parseArgs(argv) {
  const o = { private: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => {
      if (i + 1 >= argv.length) usage(`${a} needs a value`);
      return argv[++i];
    };
    switch (a) {
      case '--docs': o.docs = val(); break;
      case '--private': o.private.push(val().replace(/^\/+/, '')); break;
      case '--url': o.url = val(); break;
      case '--token': o.token = val(); break;
      case '--basic': o.basic = val(); break;
      case '--transcript': o.transcript = val(); break;
      case '--stdio':
        o.stdio = argv.slice(i + 1);
        if (o.stdio.length === 0) usage('--stdio needs a command');
        i = argv.length;
        break;
      default: usage(`unknown argument ${a}`);
    }
  }
  if (!o.docs) usage('--docs is required');
  if (!o.stdio === !o.url) usage('give exactly one of --stdio and --url');
  if (o.token && o.basic) usage('give at most one of --token and --basic');
  return o;
}

// The source files' modification times, slug -> Date.
const mtimes = new Map();

// The source tree: slug -> content (a Buffer); their times go to mtimes.
function walk(root) {
  const files = new Map();
  const rec = (dir, prefix) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const slug = prefix ? `${prefix}/${e.name}` : e.name;
      if (e.isDirectory()) rec(join(dir, e.name), slug);
      else if (e.isFile()) {
        files.set(slug, readFileSync(join(dir, e.name)));
        mtimes.set(slug, statSync(join(dir, e.name)).mtime);
      }
    }
  };
  if (!statSync(root).isDirectory()) usage(`${root} is not a directory`);
  rec(root, '');
  return files;
}

// dirsOf returns the directories (slugs, '' for the root) that hold the files.
function dirsOf(slugs) {
  const dirs = new Set(['']);
  for (const s of slugs) {
    const parts = s.split('/');
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
  }
  return dirs;
}

const abs = (slug) => '/' + slug;
const parentOf = (slug) => (slug.includes('/') ? slug.slice(0, slug.lastIndexOf('/')) : '');
const baseOf = (slug) => slug.slice(slug.lastIndexOf('/') + 1);

// lines splits content as cat -n numbers it: a final newline ends the last
// line rather than starting another.
function lines(text) {
  if (text === '') return [];
  const ls = text.split('\n');
  if (ls[ls.length - 1] === '') ls.pop();
  return ls;
}

const MAX_LINE = 2000; // the read tool's longest line before its marker
const DEFAULT_LIMIT = 2000; // the read tool's default number of lines
const OUTPUT_CAP = 30000; // the default bound of every tool's text output

// ---- checks -----------------------------------------------------------

const report = { transport: '', server: null, tools: [], calls: 0, checks: 0, passed: 0, failures: [] };

function check(name, ok, detail) {
  report.checks++;
  if (ok) {
    report.passed++;
    return true;
  }
  const d = typeof detail === 'function' ? detail() : detail;
  const s = String(d ?? '');
  report.failures.push({ check: name, detail: s.length > 2000 ? s.slice(0, 2000) + '…' : s });
  process.stderr.write(`FAIL ${name}: ${s.length > 2000 ? s.slice(0, 2000) + '…' : s}\n`);
  return false;
}

const q = (s) => JSON.stringify(s);

function sameArray(a, b) {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function sameList(name, got, want) {
  return check(name, sameArray(got, want),
    () => `got ${q(got)}\nwant ${q(want)}`);
}

// Every text of the run, for the leak scan at the end.
const transcript = [];

async function call(client, tool, args) {
  report.calls++;
  let res;
  try {
    res = await client.callTool({ name: tool, arguments: args });
  } catch (err) {
    // A protocol error (invalid arguments, unknown tool) is an error the
    // model sees too: keep its message.
    const text = String(err?.message ?? err);
    transcript.push({ tool, args, isError: true, text });
    return { isError: true, text, protocolError: true, structured: undefined };
  }
  const text = (res.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('');
  transcript.push({ tool, args, isError: res.isError === true, text, structured: res.structuredContent });
  return { isError: res.isError === true, text, structured: res.structuredContent };
}

// bashResult reads the bash tool's answer: stdout, stderr and exit status
// from its structured content.
function bashResult(r) {
  const s = r.structured ?? {};
  const key = (re) => Object.keys(s).find((k) => re.test(k));
  const kOut = key(/^stdout$/i), kErr = key(/^stderr$/i), kCode = key(/exit|status|code/i);
  return {
    ok: kOut !== undefined && kErr !== undefined && kCode !== undefined,
    stdout: kOut !== undefined ? s[kOut] : undefined,
    stderr: kErr !== undefined ? s[kErr] : undefined,
    code: kCode !== undefined ? s[kCode] : undefined,
    keys: Object.keys(s),
  };
}

async function bash(client, command) {
  const r = await call(client, 'bash', { command });
  return { ...bashResult(r), raw: r };
}

// expectRead is the read tool's answer for content from line offset, at
// most limit lines, as the issue specifies it: `cat -n` numbering, long
// lines cut (checked apart: null here), a footer when more lines remain.
function expectRead(content, offset, limit) {
  const ls = lines(content);
  const out = [];
  const end = Math.min(ls.length, offset - 1 + limit);
  for (let n = offset; n <= end; n++) {
    const l = ls[n - 1];
    out.push(l.length > MAX_LINE ? { n, prefix: `${String(n).padStart(6)}\t${l.slice(0, MAX_LINE)}` } : `${String(n).padStart(6)}\t${l}`);
  }
  const footer = end < ls.length ? `(lines ${offset}-${end} of ${ls.length}; use offset=${end + 1} to continue)` : null;
  return { lines: out, footer, total: ls.length };
}

// matchRead compares the read tool's text with expectRead's answer.
function matchRead(text, want) {
  let got = text.split('\n');
  while (got.length && got[got.length - 1] === '') got.pop();
  if (want.footer !== null) {
    if (got[got.length - 1] !== want.footer) return `last line ${q(got[got.length - 1])}, want the footer ${q(want.footer)}`;
    got.pop();
    while (got.length && got[got.length - 1] === '') got.pop();
  }
  if (got.length !== want.lines.length) return `${got.length} lines, want ${want.lines.length}:\n${text.slice(0, 600)}`;
  for (let i = 0; i < got.length; i++) {
    const w = want.lines[i];
    if (typeof w === 'string' ? got[i] !== w : !(got[i].startsWith(w.prefix) && got[i].length > w.prefix.length)) {
      return `line ${i + 1}: got ${q(got[i].slice(0, 200))}, want ${q((typeof w === 'string' ? w : w.prefix + '<marker>').slice(0, 200))}`;
    }
  }
  return null;
}

// normalize replaces a path (and its parent) in an answer so that the
// answers for two different paths can be compared.
function normalize(text, slug) {
  const p = abs(slug);
  let t = text.split(p).join('<PATH>');
  const par = parentOf(slug);
  if (par !== '') t = t.split(abs(par)).join('<PARENT>');
  t = t.split(baseOf(slug)).join('<BASE>');
  return t;
}

// ---- main -------------------------------------------------------------

async function main() {
  const opt = parseArgs(process.argv.slice(2));
  const all = walk(opt.docs);
  for (const p of opt.private) {
    if (!all.has(p)) usage(`--private ${p}: no such file under ${opt.docs}`);
  }
  const priv = new Set(opt.private);
  const visible = new Map([...all].filter(([s]) => !priv.has(s)));
  const vslugs = [...visible.keys()].sort();
  const vdirs = dirsOf(vslugs);
  const hiddenDirs = [...dirsOf(priv)].filter((d) => d !== '' && !vdirs.has(d)).sort();

  let transport;
  if (opt.stdio) {
    report.transport = 'stdio';
    transport = new StdioClientTransport({ command: opt.stdio[0], args: opt.stdio.slice(1), env: process.env, stderr: 'inherit' });
  } else {
    report.transport = 'http';
    const headers = {};
    if (opt.token) headers.Authorization = `Bearer ${opt.token}`;
    if (opt.basic) headers.Authorization = `Basic ${Buffer.from(opt.basic).toString('base64')}`;
    transport = new StreamableHTTPClientTransport(new URL(opt.url), { requestInit: { headers } });
  }
  const client = new Client({ name: 'chromafs-check', version: '1.0.0' });
  try {
    await client.connect(transport);
  } catch (err) {
    check('connect', false, String(err?.stack ?? err));
    return opt;
  }
  try {
    report.server = client.getServerVersion() ?? null;
    await checkTools(client);
    await checkRead(client, visible, vslugs);
    await checkLs(client, visible, vslugs, vdirs);
    await checkStat(client, visible, vslugs, vdirs);
    await checkGlob(client, vslugs, vdirs);
    await checkGrep(client, visible, vslugs);
    await checkBash(client, visible, vslugs, vdirs);
    await checkSearch(client, visible, vslugs);
    await checkPrivate(client, all, visible, [...priv].sort(), hiddenDirs);
    checkLeaks(all, visible, [...priv].sort(), hiddenDirs);
  } catch (err) {
    check('run', false, String(err?.stack ?? err));
  } finally {
    await client.close().catch(() => {});
  }
  return opt;
}

const TOOLS = {
  bash: ['command'],
  read: ['path', 'offset', 'limit'],
  ls: ['path'],
  glob: ['pattern', 'path'],
  grep: ['pattern', 'path', 'glob', 'output_mode', 'case_insensitive', 'fixed_strings', 'perl_regexp', 'context', 'line_numbers', 'head_limit'],
  stat: ['path'],
  search: ['query', 'path', 'k'],
};

async function checkTools(client) {
  const { tools } = await client.listTools();
  report.tools = tools.map((t) => t.name).sort();
  sameList('tools/list names', report.tools, Object.keys(TOOLS).sort());
  for (const t of tools) {
    const props = Object.keys(t.inputSchema?.properties ?? {});
    const want = TOOLS[t.name];
    if (!want) continue;
    check(`tools/list ${t.name} read-only`, t.annotations?.readOnlyHint === true, () => `annotations ${q(t.annotations)}`);
    check(`tools/list ${t.name} description`, typeof t.description === 'string' && t.description.length >= 20, () => `description ${q(t.description)}`);
    check(`tools/list ${t.name} input schema`, t.inputSchema?.type === 'object' && want.every((p) => props.includes(p)),
      () => `properties ${q(props)}, want at least ${q(want)}`);
  }
}

async function checkRead(client, visible, vslugs) {
  for (const slug of vslugs) {
    const content = visible.get(slug).toString('utf8');
    const r = await call(client, 'read', { path: abs(slug) });
    if (!check(`read ${abs(slug)} succeeds`, !r.isError, () => r.text)) continue;
    if (content === '') {
      check(`read ${abs(slug)} says the file is empty`, /empty/i.test(r.text) && !/^\s*\d+\t/m.test(r.text), () => q(r.text));
      continue;
    }
    const bad = matchRead(r.text, expectRead(content, 1, DEFAULT_LIMIT));
    check(`read ${abs(slug)} matches the source`, bad === null, bad);
  }
  // Paging, on the file of most lines.
  const [slug, content] = [...visible].map(([s, c]) => [s, c.toString('utf8')])
    .sort((a, b) => lines(b[1]).length - lines(a[1]).length || (a[0] < b[0] ? -1 : 1))[0];
  const n = lines(content).length;
  if (n >= 4) {
    const limit = Math.floor(n / 3);
    let offset = 1;
    let pages = 0;
    while (offset <= n && pages < 10) {
      const r = await call(client, 'read', { path: abs(slug), offset, limit });
      const bad = r.isError ? r.text : matchRead(r.text, expectRead(content, offset, limit));
      if (!check(`read ${abs(slug)} offset=${offset} limit=${limit}`, bad === null, bad)) break;
      offset += limit;
      pages++;
    }
    const r = await call(client, 'read', { path: abs(slug), offset: n + 5 });
    check(`read ${abs(slug)} offset past the end is an error or empty`, r.isError || !/^\s*\d+\t/m.test(r.text), () => q(r.text));
  }
  const r = await call(client, 'read', { path: '/no/such/page.md' });
  check('read of a missing path is an error', r.isError, () => q(r.text));
  check('read of a missing path says so and suggests ls of its parent',
    /no such|not found|does not exist/i.test(r.text) && r.text.includes('/no/such') && /\bls\b/.test(r.text), () => q(r.text));
}

// lsLines returns the non-empty lines of an answer.
function lsLines(text) {
  return text.split('\n').filter((l) => l.trim() !== '');
}

// lsEntry parses a line of the ls tool: "NAME/" for a directory,
// "NAME  SIZE bytes" for a file.
function lsEntry(line) {
  let m = /^(.+\/)$/.exec(line);
  if (m) return { name: m[1], size: null };
  m = /^(.+?)\s+(\d+) bytes?$/.exec(line);
  if (m) return { name: m[1], size: Number(m[2]) };
  return null;
}

function children(dir, vslugs, vdirs) {
  const pre = dir === '' ? '' : dir + '/';
  const out = [];
  for (const s of vslugs) if (s.startsWith(pre) && !s.slice(pre.length).includes('/')) out.push({ name: s.slice(pre.length), slug: s, dir: false });
  for (const d of vdirs) if (d !== '' && d.startsWith(pre) && !d.slice(pre.length).includes('/')) out.push({ name: d.slice(pre.length) + '/', slug: d, dir: true });
  const key = (e) => e.name.replace(/\/$/, '');
  return out.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

async function checkLs(client, visible, vslugs, vdirs) {
  for (const dir of [...vdirs].sort()) {
    const r = await call(client, 'ls', { path: abs(dir) });
    if (!check(`ls ${abs(dir)} succeeds`, !r.isError, () => r.text)) continue;
    const want = children(dir, vslugs, vdirs);
    const got = lsLines(r.text).map((l) => lsEntry(l) ?? { name: null, line: l });
    const problems = [];
    const bad = got.filter((e) => e.name === null).map((e) => e.line);
    if (bad.length) problems.push(`lines that are neither "NAME/" nor "NAME  SIZE bytes": ${q(bad)}`);
    const names = got.filter((e) => e.name !== null).map((e) => e.name);
    if (!sameArray(names, want.map((e) => e.name))) problems.push(`entries ${q(names)}, want ${q(want.map((e) => e.name))}`);
    for (const e of want) {
      const g = got.find((x) => x.name === e.name);
      if (g && !e.dir && g.size !== visible.get(e.slug).length) problems.push(`${e.name}: size ${g.size}, want ${visible.get(e.slug).length}`);
    }
    check(`ls ${abs(dir)} lists the source directory`, problems.length === 0, () => problems.join('; ') + '\n' + r.text);
  }
  for (const slug of vslugs.slice(0, 3)) {
    const r = await call(client, 'ls', { path: abs(slug) });
    const e = lsEntry(lsLines(r.text)[0] ?? '');
    check(`ls ${abs(slug)} (a file) lists the file and its size`, !r.isError && lsLines(r.text).length === 1 && e !== null &&
      (e.name === baseOf(slug) || e.name === abs(slug)) && e.size === visible.get(slug).length, () => q(r.text));
  }
  const r = await call(client, 'ls', { path: '/no/such/dir' });
  check('ls of a missing path is an error', r.isError && /no such|not found|does not exist/i.test(r.text), () => q(r.text));
}

async function checkStat(client, visible, vslugs, vdirs) {
  for (const slug of vslugs) {
    const r = await call(client, 'stat', { path: abs(slug) });
    if (!check(`stat ${abs(slug)} succeeds`, !r.isError, () => r.text)) continue;
    const size = visible.get(slug).length;
    check(`stat ${abs(slug)} gives the size`, new RegExp(`\\b${size}\\b`).test(r.text), () => `size ${size} not in ${q(r.text)}`);
    check(`stat ${abs(slug)} says it is a file`, /\b(regular|file)\b/i.test(r.text) && !/\bdirectory\b/i.test(r.text), () => q(r.text));
    // A modification time or hash given must be the source file's.
    const when = /\b(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d))/.exec(r.text);
    if (when) {
      const got = Math.floor(Date.parse(when[1]) / 1000), want = Math.floor(mtimes.get(slug).getTime() / 1000);
      check(`stat ${abs(slug)} gives the source's modification time`, got === want, () => `${when[1]}, want ${mtimes.get(slug).toISOString()}`);
    }
    const hash = /sha256:([0-9a-f]{64})/.exec(r.text);
    if (hash) {
      const want = createHash('sha256').update(visible.get(slug)).digest('hex');
      check(`stat ${abs(slug)} gives the source's sha256`, hash[1] === want, () => `${hash[1]}, want ${want}`);
    }
  }
  for (const dir of [...vdirs].sort().slice(0, 5)) {
    const r = await call(client, 'stat', { path: abs(dir) });
    check(`stat ${abs(dir)} says it is a directory`, !r.isError && /\bdirectory\b/i.test(r.text), () => q(r.text));
  }
  const r = await call(client, 'stat', { path: '/no/such/page.md' });
  check('stat of a missing path is an error', r.isError && /no such|not found|does not exist/i.test(r.text), () => q(r.text));
}

// globRE translates a glob pattern (*, ?, [...], ** as zero or more whole
// directories) into a regular expression over slugs.
function globRE(pattern) {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*' && pattern[i + 1] === '*') {
      if (pattern[i + 2] === '/') {
        re += '(?:.*/)?';
        i += 2;
      } else {
        re += '.*';
        i += 1;
      }
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const j = pattern.indexOf(']', i + 1);
      re += pattern.slice(i, j + 1);
      i = j;
    } else re += c.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 'u');
}

function globWant(pattern, base, vslugs, vdirs) {
  const pre = base === '' ? '' : base + '/';
  const re = globRE(pattern);
  const files = vslugs.filter((s) => s.startsWith(pre) && re.test(s.slice(pre.length))).map(abs);
  const dirs = [...vdirs].filter((d) => d !== '' && d.startsWith(pre) && re.test(d.slice(pre.length))).map((d) => abs(d) + '/');
  return [...files, ...dirs].sort();
}

async function checkGlob(client, vslugs, vdirs) {
  const cases = [
    { pattern: '**/*.md' },
    { pattern: '*.md' },
    { pattern: '**/*.mdx' },
    { pattern: '*', path: '/guides' },
    { pattern: '**/*.md', path: '/reference' },
    { pattern: 'no-such-*.xyz' },
  ];
  for (const c of cases) {
    const r = await call(client, 'glob', c);
    const base = (c.path ?? '/').replace(/^\/+/, '').replace(/\/+$/, '');
    const want = globWant(c.pattern, base, vslugs, vdirs);
    const name = `glob ${c.pattern}${c.path ? ' in ' + c.path : ''}`;
    if (!check(`${name} succeeds`, !r.isError, () => r.text)) continue;
    const got = lsLines(r.text).filter((l) => l.startsWith('/'));
    // The files must be exact and sorted; directories (with a trailing /)
    // may be listed too.
    const wantFiles = want.filter((p) => visibleFile(vslugs, p));
    const gotFiles = got.filter((p) => visibleFile(vslugs, p));
    sameList(`${name} lists the matching files, sorted`, gotFiles, wantFiles);
    const stray = got.filter((p) => !want.includes(p));
    check(`${name} lists nothing else`, stray.length === 0, () => `unexpected ${q(stray)}\n${r.text}`);
  }
}

function visibleFile(vslugs, p) {
  return vslugs.includes(p.replace(/^\//, ''));
}

// grepWant is GNU grep -r's answer over the visible files for a literal.
function grepWant(visible, vslugs, lit, { ci = false, base = '', glob = null } = {}) {
  const norm = ci ? (s) => s.toLowerCase() : (s) => s;
  const needle = norm(lit);
  const pre = base === '' ? '' : base + '/';
  const re = glob ? globRE(glob) : null;
  const out = [];
  for (const slug of vslugs) {
    if (!slug.startsWith(pre)) continue;
    if (re && !re.test(baseOf(slug)) && !re.test(slug.slice(pre.length))) continue;
    const ls = lines(visible.get(slug).toString('utf8'));
    const hits = [];
    ls.forEach((l, i) => { if (norm(l).includes(needle)) hits.push({ n: i + 1, line: l }); });
    if (hits.length) out.push({ slug, hits });
  }
  return out;
}

// aWord picks a literal that occurs in several visible files.
function pickWords(visible, vslugs) {
  const df = new Map();
  for (const slug of vslugs) {
    const words = new Set(visible.get(slug).toString('utf8').match(/[A-Za-z_]{5,}/g) ?? []);
    for (const w of words) df.set(w, (df.get(w) ?? 0) + 1);
  }
  const ranked = [...df].filter(([, n]) => n >= 2 && n < vslugs.length).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return ranked.slice(0, 3).map(([w]) => w);
}

async function checkGrep(client, visible, vslugs) {
  const words = pickWords(visible, vslugs);
  check('grep: the corpus has words to search', words.length > 0, 'no word occurs in two files');
  for (const w of words) {
    const want = grepWant(visible, vslugs, w);
    let r = await call(client, 'grep', { pattern: w, path: '/', output_mode: 'files_with_matches', fixed_strings: true });
    if (check(`grep ${w} files_with_matches succeeds`, !r.isError, () => r.text)) {
      sameList(`grep ${w} files_with_matches`, lsLines(r.text).filter((l) => l.startsWith('/')).sort(), want.map((h) => abs(h.slug)).sort());
    }
    r = await call(client, 'grep', { pattern: w, path: '/', output_mode: 'content', fixed_strings: true, line_numbers: true });
    if (check(`grep ${w} content succeeds`, !r.isError, () => r.text)) {
      const wl = want.flatMap((h) => h.hits.map((x) => `${abs(h.slug)}:${x.n}:${x.line}`)).sort();
      sameList(`grep ${w} content with line numbers`, lsLines(r.text).filter((l) => l.startsWith('/')).sort(), wl);
    }
    r = await call(client, 'grep', { pattern: w, path: '/', output_mode: 'count', fixed_strings: true });
    if (check(`grep ${w} count succeeds`, !r.isError, () => r.text)) {
      const wc = want.map((h) => `${abs(h.slug)}:${h.hits.length}`).sort();
      const gc = lsLines(r.text).filter((l) => l.startsWith('/') && !/:0$/.test(l)).sort();
      sameList(`grep ${w} count`, gc, wc);
    }
    const upper = w.toUpperCase();
    const wantCI = grepWant(visible, vslugs, upper, { ci: true });
    r = await call(client, 'grep', { pattern: upper, path: '/', output_mode: 'files_with_matches', case_insensitive: true });
    if (check(`grep -i ${upper} succeeds`, !r.isError, () => r.text)) {
      sameList(`grep -i ${upper} files_with_matches`, lsLines(r.text).filter((l) => l.startsWith('/')).sort(), wantCI.map((h) => abs(h.slug)).sort());
    }
    r = await call(client, 'grep', { pattern: w, path: '/', output_mode: 'content', fixed_strings: true, line_numbers: true, head_limit: 2 });
    if (check(`grep ${w} head_limit=2 succeeds`, !r.isError, () => r.text)) {
      const got = lsLines(r.text).filter((l) => l.startsWith('/'));
      const all = want.flatMap((h) => h.hits.map((x) => `${abs(h.slug)}:${x.n}:${x.line}`));
      check(`grep ${w} head_limit=2 gives 2 matching lines`, got.length === Math.min(2, all.length) && got.every((l) => all.includes(l)), () => `got ${q(got)}`);
    }
  }
  if (words.length) {
    const w = words[0];
    const want = grepWant(visible, vslugs, w, { glob: '*.md' });
    const r = await call(client, 'grep', { pattern: w, path: '/', glob: '*.md', output_mode: 'files_with_matches', fixed_strings: true });
    if (check(`grep ${w} glob=*.md succeeds`, !r.isError, () => r.text)) {
      sameList(`grep ${w} glob=*.md`, lsLines(r.text).filter((l) => l.startsWith('/')).sort(), want.map((h) => abs(h.slug)).sort());
    }
    const first = want[0];
    const dir = parentOf(first.slug);
    if (dir !== '') {
      const wd = grepWant(visible, vslugs, w, { base: dir });
      const r2 = await call(client, 'grep', { pattern: w, path: abs(dir), output_mode: 'files_with_matches', fixed_strings: true });
      if (check(`grep ${w} in ${abs(dir)} succeeds`, !r2.isError, () => r2.text)) {
        sameList(`grep ${w} in ${abs(dir)}`, lsLines(r2.text).filter((l) => l.startsWith('/')).sort(), wd.map((h) => abs(h.slug)).sort());
      }
    }
  }
  const r = await call(client, 'grep', { pattern: 'zq9-no-such-string-7x', path: '/', output_mode: 'files_with_matches' });
  check('grep with no match lists no file', !lsLines(r.text).some((l) => l.startsWith('/')), () => q(r.text));
}

async function checkBash(client, visible, vslugs, vdirs) {
  let b = await bash(client, 'echo hello');
  check('bash gives stdout, stderr and exit status as structured content', b.ok, () => `structured keys ${q(b.keys)}; text ${q(b.raw.text)}`);
  check('bash echo hello', b.stdout === 'hello\n' && b.stderr === '' && Number(b.code) === 0, () => q(b));
  check('bash text content carries stdout', b.raw.text.includes('hello'), () => q(b.raw.text));
  for (const slug of vslugs) {
    const want = visible.get(slug).toString('utf8');
    b = await bash(client, `cat '${abs(slug).replace(/'/g, `'\\''`)}'`);
    check(`bash cat ${abs(slug)} gives the source bytes`, b.stdout === want && Number(b.code) === 0,
      () => `status ${b.code}, stderr ${q(b.stderr)}, ${b.stdout?.length} characters, want ${want.length}`);
  }
  b = await bash(client, 'find / -type f | sort');
  sameList('bash find / -type f | sort', lines(b.stdout ?? ''), vslugs.map(abs).sort((a, c) => (a < c ? -1 : a > c ? 1 : 0)));
  b = await bash(client, 'ls -A /');
  sameList('bash ls -A /', lines(b.stdout ?? ''), children('', vslugs, vdirs).map((e) => e.name.replace(/\/$/, '')).sort(lsOrder));
  b = await bash(client, 'ls /');
  sameList('bash ls /', lines(b.stdout ?? ''), children('', vslugs, vdirs).map((e) => e.name.replace(/\/$/, '')).filter((n) => !n.startsWith('.')).sort(lsOrder));
  const words = pickWords(visible, vslugs);
  if (words.length) {
    const w = words[0];
    b = await bash(client, `grep -rl ${w} / | sort`);
    sameList(`bash grep -rl ${w} /`, lines(b.stdout ?? ''), grepWant(visible, vslugs, w).map((h) => abs(h.slug)).sort());
    b = await bash(client, `grep -rc ${w} / | grep -v ':0$' | sort`);
    sameList(`bash grep -rc ${w} /`, lines(b.stdout ?? ''), grepWant(visible, vslugs, w).map((h) => `${abs(h.slug)}:${h.hits.length}`).sort());
  }
  // The session's working directory lasts from call to call.
  const sub = [...vdirs].filter((d) => d !== '').sort()[0];
  if (sub) {
    b = await bash(client, `cd ${abs(sub)}`);
    check(`bash cd ${abs(sub)}`, Number(b.code) === 0, () => q(b));
    b = await bash(client, 'pwd');
    check('bash pwd after cd, in a later call', b.stdout === abs(sub) + '\n', () => q(b));
    b = await bash(client, 'ls');
    sameList(`bash ls in ${abs(sub)}`, lines(b.stdout ?? ''), children(sub, vslugs, vdirs).map((e) => e.name.replace(/\/$/, '')).filter((n) => !n.startsWith('.')).sort(lsOrder));
    const f = vslugs.find((s) => parentOf(s) === sub);
    if (f) {
      const r = await call(client, 'read', { path: baseOf(f) });
      const bad = r.isError ? r.text : (visible.get(f).length === 0 ? null : matchRead(r.text, expectRead(visible.get(f).toString('utf8'), 1, DEFAULT_LIMIT)));
      check(`read of a relative path resolves against the cwd ${abs(sub)}`, bad === null, bad);
    }
    await bash(client, 'cd /');
  }
  b = await bash(client, 'cat /no/such/page.md');
  check('bash cat of a missing page', Number(b.code) === 1 && b.stderr === 'cat: /no/such/page.md: No such file or directory\n', () => q(b));
  b = await bash(client, 'echo x > /index.md');
  check('bash cannot write', Number(b.code) !== 0 && /Read-only file system/.test(b.stderr ?? ''), () => q(b));
  b = await bash(client, 'nosuchcommand');
  check('bash unknown command', Number(b.code) === 127 && /command not found/.test(b.stderr ?? ''), () => q(b));
  // Bounded output: far more than the cap, cut with a note.
  const big = vslugs.map((s) => [s, visible.get(s).length]).sort((a, c) => c[1] - a[1])[0];
  const times = Math.ceil((3 * OUTPUT_CAP) / Math.max(1, big[1]));
  b = await bash(client, `for i in $(seq 1 ${times}); do cat ${abs(big[0])}; done`);
  const tl = b.raw.text.length;
  check('bash output is bounded and says it was cut', tl <= OUTPUT_CAP + 1000 && /truncated|cut|more characters/i.test(b.raw.text),
    () => `${tl} characters of text; ends with ${q(b.raw.text.slice(-300))}`);
}

// lsOrder sorts as ls does in C.UTF-8: by code point.
function lsOrder(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

// checkSearch searches for a line of words of some visible pages: each
// page comes first, as "/path:START-END  SCORE  ...", with the line in its
// range (the collection is embedded with chromafs's n-gram function, so a
// page's own words find it).
async function checkSearch(client, visible, vslugs) {
  let n = 0;
  for (const slug of vslugs) {
    if (n >= 5) break;
    const ls = lines(visible.get(slug).toString('utf8'));
    const i = ls.findIndex((l) => l.trim().split(/\s+/).length >= 6 && l.length < 200);
    if (i < 0) continue;
    n++;
    const r = await call(client, 'search', { query: ls[i], k: 5 });
    const m = /^(\/[^\n]+?):(\d+)-(\d+)  -?\d+\.\d\d  /.exec(r.text);
    check(`search for line ${i + 1} of ${abs(slug)} finds it first`,
      !r.isError && m !== null && m[1] === abs(slug) && Number(m[2]) <= i + 1 && Number(m[3]) >= i + 1, () => q(r.text));
  }
  check('search: some page has a line to search for', n > 0, () => 'no page has a line of 6 words');
  const bad = await call(client, 'search', { query: 'x', k: -1 });
  check('search with k -1 is an error', bad.isError, () => q(bad.text));
}

async function checkPrivate(client, all, visible, privs, hiddenDirs) {
  if (privs.length === 0) return;
  for (const slug of privs) {
    const twin = parentOf(slug) === '' ? 'zz-missing-' + slug : parentOf(slug) + '/zz-missing-' + baseOf(slug);
    for (const [tool, args] of [
      ['read', (p) => ({ path: p })],
      ['stat', (p) => ({ path: p })],
      ['ls', (p) => ({ path: p })],
      ['bash', (p) => ({ command: `cat ${p}` })],
      ['bash', (p) => ({ command: `ls -l ${p}` })],
      ['bash', (p) => ({ command: `stat ${p}` })],
      ['bash', (p) => ({ command: `wc -c ${p}` })],
      ['bash', (p) => ({ command: `grep -c . ${p}` })],
      ['bash', (p) => ({ command: `test -e ${p} && echo yes || echo no` })],
      ['grep', (p) => ({ pattern: '.', path: p, output_mode: 'count' })],
      ['glob', (p) => ({ pattern: '**/' + baseOf(p) })],
      ['search', (p) => ({ query: 'the', path: p })],
    ]) {
      const a = await call(client, tool, args(abs(slug)));
      const b = await call(client, tool, args(abs(twin)));
      const na = normalize(a.text, slug), nb = normalize(b.text, twin);
      const sa = a.structured === undefined ? '' : normalize(JSON.stringify(a.structured), slug);
      const sb = b.structured === undefined ? '' : normalize(JSON.stringify(b.structured), twin);
      check(`private ${abs(slug)}: ${tool} ${q(args('P'))} answers as for a missing path`,
        a.isError === b.isError && na === nb && sa === sb,
        () => `private: isError ${a.isError} ${q(a.text)} ${sa}\nmissing: isError ${b.isError} ${q(b.text)} ${sb}`);
    }
    // Its distinctive content is found nowhere.
    const dl = distinctiveLine(all.get(slug).toString('utf8'), visible);
    if (dl) {
      const r = await call(client, 'grep', { pattern: dl, path: '/', output_mode: 'content', fixed_strings: true });
      const none = await call(client, 'grep', { pattern: 'zq9-no-such-string-7x', path: '/', output_mode: 'content', fixed_strings: true });
      check(`private ${abs(slug)}: grep of its content finds nothing`, r.text === none.text.split('zq9-no-such-string-7x').join(dl) || r.text === none.text,
        () => `${q(r.text)} vs ${q(none.text)}`);
      const b = await bash(client, `grep -rF '${dl.replace(/'/g, `'\\''`)}' /`);
      check(`private ${abs(slug)}: bash grep -r of its content finds nothing`, b.stdout === '' && Number(b.code) === 1, () => q(b));
      // A search for it answers with visible pages only (checkLeaks reads
      // every answer for private paths and content).
      await call(client, 'search', { query: dl, path: '/' });
    }
  }
  for (const d of hiddenDirs) {
    const twin = parentOf(d) === '' ? 'zz-missing-' + d : parentOf(d) + '/zz-missing-' + baseOf(d);
    for (const [tool, args] of [
      ['ls', (p) => ({ path: p })],
      ['stat', (p) => ({ path: p })],
      ['glob', (p) => ({ pattern: '**', path: p })],
      ['grep', (p) => ({ pattern: 'e', path: p, output_mode: 'files_with_matches' })],
      ['bash', (p) => ({ command: `cd ${p}` })],
      ['bash', (p) => ({ command: `ls ${p}` })],
      ['bash', (p) => ({ command: `find ${p}` })],
      ['bash', (p) => ({ command: `grep -r e ${p}` })],
      ['search', (p) => ({ query: 'the', path: p })],
    ]) {
      const a = await call(client, tool, args(abs(d)));
      const b = await call(client, tool, args(abs(twin)));
      const na = normalize(a.text, d), nb = normalize(b.text, twin);
      const sa = a.structured === undefined ? '' : normalize(JSON.stringify(a.structured), d);
      const sb = b.structured === undefined ? '' : normalize(JSON.stringify(b.structured), twin);
      check(`private directory ${abs(d)}: ${tool} ${q(args('P'))} answers as for a missing path`,
        a.isError === b.isError && na === nb && sa === sb,
        () => `private: isError ${a.isError} ${q(a.text)} ${sa}\nmissing: isError ${b.isError} ${q(b.text)} ${sb}`);
    }
  }
  // Whole-tree listings never name a private page.
  for (const [tool, args] of [
    ['glob', { pattern: '**' }],
    ['glob', { pattern: '**/*' }],
    ['grep', { pattern: '.', path: '/', output_mode: 'count' }],
    ['grep', { pattern: '', path: '/', output_mode: 'files_with_matches' }],
    ['bash', { command: 'find / | sort' }],
    ['bash', { command: 'ls -laR /' }],
    ['bash', { command: 'tree -a /' }],
    ['bash', { command: 'grep -rc "" /' }],
    ['bash', { command: 'du -a / 2>&1; rg --files / 2>&1' }],
  ]) {
    await call(client, tool, args);
  }
}

// distinctiveLine returns a line of content (at least 12 characters) that
// no visible file holds.
function distinctiveLine(content, visible) {
  const vis = [...visible.values()].map((b) => b.toString('utf8'));
  return lines(content).filter((l) => l.trim().length >= 12 && !vis.some((v) => v.includes(l.trim())))
    .map((l) => l.trim()).sort((a, b) => b.length - a.length)[0];
}

// checkLeaks scans every answer of the run for private paths and content.
function checkLeaks(all, visible, privs, hiddenDirs) {
  if (privs.length === 0) return;
  const needles = [];
  for (const slug of privs) {
    needles.push({ what: 'private path', s: abs(slug), twin: true });
    const dl = distinctiveLine(all.get(slug).toString('utf8'), visible);
    if (dl) needles.push({ what: 'private content', s: dl });
  }
  for (const d of hiddenDirs) needles.push({ what: 'private directory', s: abs(d), twin: true });
  const vis = [...visible.values()].map((b) => b.toString('utf8'));
  const leaks = [];
  for (const t of transcript) {
    // The arguments of a call are echoed in its answer legitimately (a
    // missing path is named in its error): skip the needles the call
    // itself sent.
    const sent = JSON.stringify(t.args);
    const texts = [t.text, t.structured === undefined ? '' : JSON.stringify(t.structured)];
    for (const n of needles) {
      if (sent.includes(n.s) || sent.includes(JSON.stringify(n.s).slice(1, -1))) continue;
      // A visible file may legitimately quote a private path in its text.
      if (vis.some((v) => v.includes(n.s))) continue;
      if (texts.some((x) => x.includes(n.s))) leaks.push(`${n.what} ${q(n.s)} in the answer to ${t.tool} ${sent}`);
    }
  }
  check(`no answer mentions a private page (${transcript.length} answers scanned)`, leaks.length === 0, () => leaks.slice(0, 20).join('\n'));
}

const opts = await main();
if (opts?.transcript) writeFileSync(opts.transcript, JSON.stringify(transcript, null, 1) + '\n');
process.stdout.write(JSON.stringify(report, null, 2) + '\n');
process.exitCode = report.failures.length === 0 && report.checks > 0 ? 0 : 1;
