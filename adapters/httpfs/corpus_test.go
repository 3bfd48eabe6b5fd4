package httpfs_test

import (
	"testing"

	"github.com/chromafs/chromafs/internal/testcorpus"
	"github.com/chromafs/chromafs/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// The corpus, its loaders and its views are shared with the other
// packages' tests.
var (
	corpus     = testcorpus.Files
	hiddenDirs = testcorpus.HiddenDirs
	views      = testcorpus.Views
)

// visible returns the files a user without groups may see.
func visible(files map[string]string) map[string]string { return testcorpus.Visible(files) }
