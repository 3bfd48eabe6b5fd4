package testenv

import (
	"testing"
)

// TestMain runs the tests, then stops the shared servers (Chroma, Redis)
// that they started and removes their data (testenv.Main).
func TestMain(m *testing.M) { Main(m) }
