package coarse

import "testing"

// TestCoarseClassOf: the class of a search is $regex when its main filter
// is made of regexes (the literals fit the limit), $contains otherwise,
// and short when a literal has fewer than 3 characters (not bytes).
func TestCoarseClassOf(t *testing.T) {
	for _, tc := range []struct {
		lits  []string
		fold  bool
		limit int
		want  Class
	}{
		{[]string{"token"}, false, MaxRegexBytes, ClassRegex},
		{[]string{"token"}, true, MaxRegexBytes, ClassRegex},
		{[]string{"ab"}, false, MaxRegexBytes, ClassRegex | ClassShort},
		{[]string{"éa"}, false, MaxRegexBytes, ClassRegex | ClassShort}, // 3 bytes, 2 characters
		{[]string{"abc"}, false, MaxRegexBytes, ClassRegex},
		{[]string{"token"}, false, 6, 0},
		{[]string{"éa", "token"}, false, 6, ClassShort},
	} {
		p, ok := NewPlan(tc.lits, tc.fold, tc.limit)
		if !ok {
			t.Fatalf("NewPlan(%q, %v, %d) failed", tc.lits, tc.fold, tc.limit)
		}
		if got := ClassOf(p, tc.lits); got != tc.want {
			t.Errorf("ClassOf(%q, fold %v, limit %d) = %s; want %s", tc.lits, tc.fold, tc.limit, got, tc.want)
		}
	}
}

// TestCoarseHealth: classes are verified one by one, and the filter is
// turned off once: only the first Disable reports it.
func TestCoarseHealth(t *testing.T) {
	var h Health
	h.Verify(ClassRegex)
	if !h.Verified(ClassRegex) || h.Verified(ClassRegex|ClassShort) || h.Verified(0) {
		t.Error("verifying $regex verified another class, or not $regex")
	}
	if h.Off() || !h.Disable() || h.Disable() || !h.Off() {
		t.Error("Disable: want the first call only to report true, and Off after it")
	}
}

// TestCoarseMatcher: pages that contain a literal, exactly or under Go's
// (?i) simple folding; regex metacharacters are literal.
func TestCoarseMatcher(t *testing.T) {
	for _, tc := range []struct {
		lits []string
		fold bool
		data string
		want bool
	}{
		{[]string{"a.b"}, false, "xa.by", true},
		{[]string{"a.b"}, false, "xacby", false},
		{[]string{"Token"}, false, "token", false},
		{[]string{"Token"}, true, "TOKEN", true},
		{[]string{"kelvin"}, true, "\u212Aelvin", true},
		{[]string{"x", "miſſion"}, true, "MISSION", true},
	} {
		if got := Matcher(tc.lits, tc.fold)([]byte(tc.data)); got != tc.want {
			t.Errorf("Matcher(%q, %v)(%q) = %v; want %v", tc.lits, tc.fold, tc.data, got, tc.want)
		}
	}
}
