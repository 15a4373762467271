package long

import (
	"os"
	"path/filepath"
	"testing"
)

func TestEnabled(t *testing.T) {
	for _, tt := range []struct {
		value string
		want  bool
	}{
		{"", false},
		{"0", false},
		{"true", false},
		{"1", true},
	} {
		t.Setenv(Env, tt.value)
		if got := Enabled(); got != tt.want {
			t.Errorf("%s=%q: Enabled() = %v, want %v", Env, tt.value, got, tt.want)
		}
	}
}

func TestSkip(t *testing.T) {
	t.Setenv(Env, "")
	ran := false
	t.Run("off", func(t *testing.T) {
		Skip(t, "the sweep")
		ran = true
	})
	if ran {
		t.Error("Skip did not skip with the long tests off")
	}
	t.Setenv(Env, "1")
	t.Run("on", func(t *testing.T) {
		Skip(t, "the sweep")
		ran = true
	})
	if !ran {
		t.Error("Skip skipped with the long tests on")
	}
}

func TestFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	large := filepath.Join(dir, "large")
	if err := os.WriteFile(small, make([]byte, LargeFile), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(large, make([]byte, LargeFile+1), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		long, path string
		want       bool // the test runs
	}{
		{"", small, true},
		{"", large, false},
		{"1", small, true},
		{"1", large, true},
	} {
		t.Setenv(Env, tt.long)
		ran := false
		t.Run(filepath.Base(tt.path), func(t *testing.T) {
			File(t, tt.path)
			ran = true
		})
		if ran != tt.want {
			t.Errorf("%s=%q, %s: ran %v, want %v", Env, tt.long, filepath.Base(tt.path), ran, tt.want)
		}
	}
}
