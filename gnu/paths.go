package gnu

import (
	"path"
	"strings"
)

// resolve turns an operand into an fs.FS name: absolute operands start
// at the root, relative ones at Env.Dir. It reports false for an operand
// that fs.FS cannot name (an empty string).
func (r *run) resolve(p string) (string, bool) {
	if p == "" {
		return "", false
	}
	return Resolve(r.env.Dir, p), true
}

// Resolve turns p, absolute or relative to dir, into an fs.FS name; the
// root is ".". ".." never climbs above the root.
func Resolve(dir, p string) string {
	if !strings.HasPrefix(p, "/") {
		p = "/" + dir + "/" + p
	}
	c := path.Clean(p)
	if c == "/" {
		return "."
	}
	return c[1:]
}

// join joins an operand as the user wrote it and a name below it, as ls
// and find print them: "/" + "a" is "/a", "d" + "a" is "d/a", "d/" + "a"
// is "d/a".
func join(start, name string) string {
	if strings.HasSuffix(start, "/") {
		return start + name
	}
	return start + "/" + name
}

// joinName joins an fs.FS directory name and a name in it: "." + "a" is
// "a", "d" + "a" is "d/a".
func joinName(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}
