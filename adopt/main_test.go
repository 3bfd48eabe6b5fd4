package adopt

import (
	"testing"

	"github.com/chromafs/chromafs/internal/testenv"
)

// TestMain runs the tests, then stops the shared servers (Chroma, Redis)
// that they started and removes their data (testenv.Main).
func TestMain(m *testing.M) { testenv.Main(m) }
