#!/usr/bin/env python3
"""Rank the pages of a docs folder for each question with SQLite FTS5's bm25.

The baseline of search's quality benchmark (search/quality_test.go): every
file under DOCS is a row, its whole content one column; each question
becomes an OR of its words (runs of letters, digits and underscores, each
quoted), and the rows are ordered by bm25() (best first), at most K of
them. Three variants: "unicode61" (FTS5's default tokenizer), "porter" (its
English stemmer over unicode61), and "porter+path", which also indexes the
file's path (with / and . as spaces) as a second column of equal weight.
It prints a JSON object: variant to a list, one per question in order, of
ranked paths relative to DOCS.

usage: fts5_rank.py DOCS QUESTIONS.json K
"""
import json
import os
import re
import sqlite3
import sys


def main():
    docs, questions, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(questions, encoding="utf-8") as f:
        qs = json.load(f)
    files = []
    for root, _, names in os.walk(docs):
        for name in names:
            p = os.path.join(root, name)
            rel = os.path.relpath(p, docs).replace(os.sep, "/")
            with open(p, encoding="utf-8") as f:
                files.append((rel, f.read()))
    files.sort()
    out = {}
    for name, tok, with_path in (("unicode61", "unicode61", False), ("porter", "porter", False), ("porter+path", "porter", True)):
        db = sqlite3.connect(":memory:")
        db.execute("CREATE VIRTUAL TABLE docs USING fts5(slug UNINDEXED, path, body, tokenize=%r)" % tok)
        for rel, body in files:
            db.execute("INSERT INTO docs VALUES (?, ?, ?)", (rel, re.sub(r"[/.]", " ", rel) if with_path else "", body))
        ranked = []
        for q in qs:
            words = re.findall(r"\w+", q["q"])
            if not words:
                ranked.append([])
                continue
            match = " OR ".join('"%s"' % w.replace('"', '""') for w in words)
            rows = db.execute(
                "SELECT slug FROM docs WHERE docs MATCH ? ORDER BY bm25(docs, 0, 1, 1) LIMIT ?",
                ("{path body}: (" + match + ")", k),
            ).fetchall()
            ranked.append([r[0] for r in rows])
        out[name] = ranked
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
