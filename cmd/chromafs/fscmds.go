package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/chromafs/chromafs/tree"
)

// exitError carries a process exit status. Its message, if any, has
// already been printed.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// resolve turns a user path (absolute from the collection root, or
// relative to it) into an fs.FS name. "/" and "" are the root.
func resolve(p string) string {
	if p == "" {
		return "."
	}
	c := path.Clean("/" + p)
	if c == "/" {
		return "."
	}
	return c[1:]
}

// display joins a user's start path and a name below it the way find and
// ls print them: "/" + "a" is "/a", "docs" + "a" is "docs/a".
func display(start, rel string) string {
	if rel == "." {
		return start
	}
	if strings.HasSuffix(start, "/") {
		return start + rel
	}
	return start + "/" + rel
}

// errText renders an error the way coreutils do: "No such file or
// directory" and friends.
func errText(err error) string {
	text, _ := errTextStd(err)
	return text
}

// errTextStd is errText, and whether the text is one of the standard
// messages (as strerror gives them) rather than the error's own text.
func errTextStd(err error) (string, bool) {
	var errno syscall.Errno
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "No such file or directory", true
	case errors.Is(err, syscall.EROFS):
		return "Read-only file system", true
	case errors.Is(err, fs.ErrPermission):
		return "Permission denied", true
	case errors.Is(err, fs.ErrInvalid):
		return "Invalid argument", true
	case errors.As(err, &errno):
		return errno.Error(), true
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		switch pe.Err.Error() {
		case "is a directory":
			return "Is a directory", true
		case "not a directory":
			return "Not a directory", true
		}
		return pe.Err.Error(), false
	}
	return err.Error(), false
}

// cat writes each file to w. Like cat(1) it reports a failing operand and
// goes on with the others; the status is 1 if any failed.
func cat(fsys fs.FS, w io.Writer, stderr io.Writer, args []string) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "chromafs cat: missing file operand")
		return exitError{2}
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	status := 0
	for _, a := range args {
		name := resolve(a)
		fi, err := fs.Stat(fsys, name)
		if err == nil && fi.IsDir() {
			fmt.Fprintf(stderr, "cat: %s: Is a directory\n", a)
			status = 1
			continue
		}
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			if ferr := bw.Flush(); ferr != nil {
				return ferr
			}
			// A standard message (as cat(1) prints) is followed by the
			// whole error, which says what failed; an error of chromafs's
			// own (a broken page or pointer) already does.
			text, std := errTextStd(err)
			fmt.Fprintf(stderr, "cat: %s: %s\n", a, text)
			if std && !errors.Is(err, fs.ErrNotExist) {
				fmt.Fprintf(stderr, "cat: %s: %v\n", a, err)
			}
			status = 1
			continue
		}
		if _, err := bw.Write(data); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if status != 0 {
		return exitError{status}
	}
	return nil
}

type lsOptions struct {
	long bool
	all  bool
}

// ls lists files and directories like ls(1) writing to a pipe: one name
// per line, files given as operands first, then each directory (with a
// "dir:" header when there are several operands).
func ls(fsys fs.FS, w, stderr io.Writer, args []string, opt lsOptions, now time.Time) error {
	if len(args) == 0 {
		args = []string{"/"}
	}
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	status := 0
	type operand struct {
		arg  string
		name string
		info fs.FileInfo
	}
	var files, dirs []operand
	for _, a := range args {
		name := resolve(a)
		fi, err := fs.Stat(fsys, name)
		if err != nil {
			bw.Flush()
			fmt.Fprintf(stderr, "ls: cannot access '%s': %s\n", a, errText(err))
			status = 2
			continue
		}
		if fi.IsDir() {
			dirs = append(dirs, operand{a, name, fi})
		} else {
			files = append(files, operand{a, name, fi})
		}
	}
	byArg := func(a, b operand) int { return strings.Compare(a.arg, b.arg) }
	slices.SortStableFunc(files, byArg)
	slices.SortStableFunc(dirs, byArg)
	var rows []lsRow
	for _, f := range files {
		rows = append(rows, lsRow{name: f.arg, info: f.info})
	}
	writeRows(bw, rows, opt, now, false)
	many := len(args) > 1
	for i, d := range dirs {
		if many {
			if i > 0 || len(files) > 0 {
				fmt.Fprintln(bw)
			}
			fmt.Fprintf(bw, "%s:\n", d.arg)
		}
		entries, err := fs.ReadDir(fsys, d.name)
		if err != nil {
			bw.Flush()
			fmt.Fprintf(stderr, "ls: cannot open directory '%s': %s\n", d.arg, errText(err))
			status = 2
			continue
		}
		rows = rows[:0]
		if opt.all {
			rows = append(rows, lsRow{name: ".", info: d.info}, lsRow{name: "..", info: d.info})
		}
		for _, e := range entries {
			if !opt.all && strings.HasPrefix(e.Name(), ".") {
				continue
			}
			r := lsRow{name: e.Name()}
			if opt.long {
				fi, err := e.Info()
				if err != nil {
					bw.Flush()
					fmt.Fprintf(stderr, "ls: cannot access '%s': %s\n", display(d.arg, e.Name()), errText(err))
					status = 1
					continue
				}
				r.info = fi
			}
			rows = append(rows, r)
		}
		writeRows(bw, rows, opt, now, true)
	}
	if status != 0 {
		bw.Flush()
		return exitError{status}
	}
	return nil
}

type lsRow struct {
	name string
	info fs.FileInfo
}

func writeRows(w io.Writer, rows []lsRow, opt lsOptions, now time.Time, total bool) {
	if !opt.long {
		for _, r := range rows {
			fmt.Fprintln(w, r.name)
		}
		return
	}
	width := 1
	var blocks int64
	for _, r := range rows {
		width = max(width, len(fmt.Sprint(r.info.Size())))
		if !r.info.IsDir() {
			blocks += (r.info.Size() + 1023) / 1024
		}
	}
	if total {
		fmt.Fprintf(w, "total %d\n", blocks)
	}
	for _, r := range rows {
		fmt.Fprintf(w, "%s 1 chromafs chromafs %*d %s %s\n",
			r.info.Mode(), width, r.info.Size(), lsTime(r.info.ModTime(), now), r.name)
	}
}

// lsTime formats a time as ls -l does: month, day and time for recent
// times, month, day and year for older or future ones.
func lsTime(t, now time.Time) string {
	if t.IsZero() {
		return "Jan  1  1970"
	}
	if t.After(now.AddDate(0, -6, 0)) && !t.After(now) {
		return t.Format("Jan _2 15:04")
	}
	return t.Format("Jan _2  2006")
}

// stat prints what the tree knows of one path.
func stat(fsys fs.FS, w, stderr io.Writer, args []string) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "chromafs stat: missing operand")
		return exitError{2}
	}
	status := 0
	for _, a := range args {
		fi, err := fs.Stat(fsys, resolve(a))
		if err != nil {
			fmt.Fprintf(stderr, "stat: cannot statx '%s': %s\n", a, errText(err))
			status = 1
			continue
		}
		kind := "regular file"
		if fi.IsDir() {
			kind = "directory"
		} else if fi.Size() == 0 {
			kind = "regular empty file"
		}
		fmt.Fprintf(w, "  File: %s\n", a)
		fmt.Fprintf(w, "  Size: %-15d %s\n", fi.Size(), kind)
		fmt.Fprintf(w, "Access: (%04o/%s)\n", fi.Mode().Perm(), fi.Mode())
		if mt := fi.ModTime(); !mt.IsZero() {
			fmt.Fprintf(w, "Modify: %s\n", mt.Format("2006-01-02 15:04:05.000000000 -0700"))
		} else {
			fmt.Fprintf(w, "Modify: -\n")
		}
		if e, ok := fi.Sys().(*tree.Entry); ok && e != nil {
			if e.ContentType != "" {
				fmt.Fprintf(w, "  Type: %s\n", e.ContentType)
			}
			if e.Hash != "" {
				fmt.Fprintf(w, "  Hash: %s\n", e.Hash)
			}
			if e.URL != "" {
				fmt.Fprintf(w, "   URL: %s\n", e.URL)
			}
			access := "public"
			if !e.IsPublic {
				access = "groups " + strings.Join(e.Groups, ",")
			}
			fmt.Fprintf(w, "Visible: %s\n", access)
		}
	}
	if status != 0 {
		return exitError{status}
	}
	return nil
}

// treeCmd prints a directory tree like tree(1).
func treeCmd(fsys fs.FS, w, stderr io.Writer, arg string, all bool) error {
	if arg == "" {
		arg = "/"
	}
	name := resolve(arg)
	fi, err := fs.Stat(fsys, name)
	if err != nil {
		fmt.Fprintf(stderr, "%s [error opening dir: %s]\n", arg, errText(err))
		return exitError{2}
	}
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	fmt.Fprintln(bw, arg)
	var ndirs, nfiles int
	if !fi.IsDir() {
		fmt.Fprintln(bw, " [error opening dir]")
		fmt.Fprintf(bw, "\n0 directories, 0 files\n")
		return exitError{2}
	}
	var walk func(dir, indent string) error
	walk = func(dir, indent string) error {
		entries, err := fs.ReadDir(fsys, dir)
		if err != nil {
			return err
		}
		if !all {
			kept := entries[:0]
			for _, e := range entries {
				if !strings.HasPrefix(e.Name(), ".") {
					kept = append(kept, e)
				}
			}
			entries = kept
		}
		for i, e := range entries {
			last := i == len(entries)-1
			branch, next := "├── ", "│   "
			if last {
				branch, next = "└── ", "    "
			}
			fmt.Fprintf(bw, "%s%s%s\n", indent, branch, e.Name())
			if e.IsDir() {
				ndirs++
				if err := walk(path.Join(dir, e.Name()), indent+next); err != nil {
					return err
				}
			} else {
				nfiles++
			}
		}
		return nil
	}
	if err := walk(name, ""); err != nil {
		return err
	}
	fmt.Fprintf(bw, "\n%d %s, %d %s\n", ndirs, plural(ndirs, "directory", "directories"), nfiles, plural(nfiles, "file", "files"))
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
