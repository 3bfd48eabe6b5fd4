package tracing_test

import (
	"testing"

	"github.com/chromafs/chromafs/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }
