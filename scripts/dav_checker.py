#!/usr/bin/env python3
"""Independent checker of a read-only docs server (Python stdlib only).

Walks a WebDAV server with PROPFIND Depth: 1 through every collection,
checks that Depth: infinity is refused with 403 and DAV:propfind-finite-depth
(or answered completely), and compares what it finds with a local directory:
the same files, the same sizes, and byte-identical content over both WebDAV
and HTTP GET. It also checks Range and HEAD on every file, and that every
write method is refused with a 4xx and changes nothing.

usage: dav_checker.py --http URL --webdav URL DIR
Exit status 0 when every check passes; each failure is printed.
"""
import argparse
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET

DAV = "{DAV:}"
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def request(method, url, headers=None, body=None):
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def propfind(base, path, depth):
    url = base + urllib.parse.quote(path)
    return request("PROPFIND", url, {"Depth": depth, "Content-Type": "application/xml"},
                   b'<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>')


def parse_multistatus(body, base_path):
    """Yields (path, is_collection, length) for each response."""
    root = ET.fromstring(body)
    for resp in root.findall(DAV + "response"):
        href = urllib.parse.unquote(urllib.parse.urlparse(resp.findtext(DAV + "href")).path)
        if base_path and href.startswith(base_path):
            href = href[len(base_path):] or "/"
        prop = resp.find(DAV + "propstat/" + DAV + "prop")
        is_coll = prop is not None and prop.find(DAV + "resourcetype/" + DAV + "collection") is not None
        length = prop.findtext(DAV + "getcontentlength") if prop is not None else None
        yield href, is_coll, (int(length) if length is not None else None)


def walk(dav):
    base_path = urllib.parse.urlparse(dav).path.rstrip("/")
    files, todo, seen = {}, ["/"], set()
    while todo:
        d = todo.pop()
        if d in seen:
            continue
        seen.add(d)
        status, _, body = propfind(dav, d, "1")
        if status != 207:
            fail(f"PROPFIND {d} Depth 1: status {status}")
            continue
        for href, is_coll, length in parse_multistatus(body, base_path):
            if is_coll:
                p = href if href.endswith("/") else href + "/"
                if p != d:
                    todo.append(p)
            else:
                files[href.lstrip("/")] = length
    return files


def local_files(root):
    out = {}
    for dirpath, _, names in os.walk(root):
        for n in names:
            p = os.path.join(dirpath, n)
            out[os.path.relpath(p, root).replace(os.sep, "/")] = p
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--http", required=True)
    ap.add_argument("--webdav", required=True)
    ap.add_argument("dir")
    a = ap.parse_args()
    http_base, dav = a.http.rstrip("/"), a.webdav.rstrip("/")

    local = local_files(a.dir)
    found = walk(dav)
    if set(found) != set(local):
        fail(f"WebDAV lists {len(found)} files, the directory has {len(local)}: "
             f"extra {sorted(set(found) - set(local))[:5]}, missing {sorted(set(local) - set(found))[:5]}")

    status, _, body = propfind(dav, "/", "infinity")
    if status == 403:
        if b"propfind-finite-depth" not in body:
            fail("Depth: infinity refused without DAV:propfind-finite-depth")
    elif status == 207:
        n = sum(1 for _, c, _ in parse_multistatus(body, urllib.parse.urlparse(dav).path.rstrip("/")) if not c)
        if n != len(local):
            fail(f"Depth: infinity answered with {n} files, want {len(local)}")
    else:
        fail(f"PROPFIND Depth: infinity: status {status}")

    for rel, path in sorted(local.items()):
        with open(path, "rb") as f:
            want = f.read()
        # A server may leave getcontentlength out when it cannot tell the
        # size without reading the file (chromafs lists without reading);
        # a length it does give must be right.
        if found.get(rel) is not None and found[rel] != len(want):
            fail(f"{rel}: getcontentlength {found[rel]}, file has {len(want)} bytes")
        q = "/" + urllib.parse.quote(rel)
        for name, base in (("http", http_base), ("webdav", dav)):
            status, _, got = request("GET", base + q)
            if status != 200 or got != want:
                fail(f"{name} GET {rel}: status {status}, {len(got)} bytes, want {len(want)} identical bytes")
            status, headers, got = request("HEAD", base + q)
            if status != 200 or got or int(headers.get("Content-Length", -1)) != len(want):
                fail(f"{name} HEAD {rel}: status {status}, Content-Length {headers.get('Content-Length')}, body {len(got)} bytes")
            if len(want) > 10:
                status, headers, got = request("GET", base + q, {"Range": "bytes=3-9"})
                if status != 206 or got != want[3:10]:
                    fail(f"{name} GET {rel} Range bytes=3-9: status {status}, {got[:20]!r}")

    target = "/" + urllib.parse.quote(sorted(local)[0]) if local else "/x"
    writes = [("PUT", target, {}, b"changed"), ("PUT", "/new-file.md", {}, b"new"),
              ("DELETE", target, {}, None), ("MKCOL", "/newdir/", {}, None),
              ("MOVE", target, {"Destination": dav + "/moved.md"}, None),
              ("COPY", target, {"Destination": dav + "/copied.md"}, None),
              ("PROPPATCH", target, {"Content-Type": "application/xml"},
               b'<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><x xmlns="urn:x">1</x></D:prop></D:set></D:propertyupdate>'),
              ("LOCK", target, {"Content-Type": "application/xml"},
               b'<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockinfo>'),
              ("UNLOCK", target, {"Lock-Token": "<opaquelocktoken:x>"}, None)]
    # The listing just before the writes: reading the files above may
    # have let the server learn sizes it did not list before.
    before = walk(dav)
    if set(before) != set(found):
        fail("the files listed changed after reading them")
    for rel, n in before.items():
        if n is not None and n != os.path.getsize(local[rel]):
            fail(f"{rel}: getcontentlength {n} after reading, file has {os.path.getsize(local[rel])} bytes")
    for name, base in (("http", http_base), ("webdav", dav)):
        for method, path, headers, body in writes:
            status, _, _ = request(method, base + path, headers, body)
            if not 400 <= status < 500:
                fail(f"{name} {method} {path}: status {status}, want 4xx")
    if walk(dav) != before:
        fail("the listing changed after the write attempts")

    sized = sum(1 for rel in local if found.get(rel) is not None)
    sized_after = sum(1 for rel in local if before.get(rel) is not None)
    print(f"checked {len(local)} files over HTTP and WebDAV ({sized} listed with a length, "
          f"{sized_after} after reading them): {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
