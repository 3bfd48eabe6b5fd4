package textio

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestLineReader(t *testing.T) {
	for _, tt := range []struct {
		in    string
		delim byte
		limit int
		want  []string
		err   error // after the lines
	}{
		{"a\nbb\n", '\n', 10, []string{"a\n", "bb\n"}, io.EOF},
		{"a\nlast", '\n', 10, []string{"a\n", "last"}, io.EOF},
		{"", '\n', 10, nil, io.EOF},
		{"a\x00b\x00", 0, 10, []string{"a\x00", "b\x00"}, io.EOF},
		{"abc\nabcd\n", '\n', 4, []string{"abc\n"}, ErrTooLarge},
		{"abcd", '\n', 4, []string{"abcd"}, io.EOF},
		{strings.Repeat("x", 100<<10) + "\n", '\n', 200 << 10, []string{strings.Repeat("x", 100<<10) + "\n"}, io.EOF},
		{strings.Repeat("x", 100<<10) + "\n", '\n', 90 << 10, nil, ErrTooLarge},
	} {
		lr := NewLineReader(strings.NewReader(tt.in), tt.delim, tt.limit)
		var got []string
		var err error
		for {
			var line []byte
			if line, err = lr.Next(); err != nil {
				break
			}
			got = append(got, string(line))
		}
		if strings.Join(got, "|") != strings.Join(tt.want, "|") || !errors.Is(err, tt.err) {
			t.Errorf("%.20q limit %d: %.40q, %v; want %.40q, %v", tt.in, tt.limit, got, err, tt.want, tt.err)
		}
	}
}

func TestRest(t *testing.T) {
	lr := NewLineReader(strings.NewReader("one\ntwo\nthree\n"), '\n', 100)
	if line, err := lr.Next(); string(line) != "one\n" || err != nil {
		t.Fatalf("Next = %q, %v", line, err)
	}
	rest, err := io.ReadAll(lr.Rest())
	if string(rest) != "two\nthree\n" || err != nil {
		t.Errorf("Rest = %q, %v; want the lines after the first", rest, err)
	}
}
