package report

import "testing"

func TestFormatValue(t *testing.T) {
	tests := []struct {
		v    int64
		unit string
		want string
	}{
		{0, "nanoseconds", "0"},
		{10_000_000, "nanoseconds", "10ms"},
		{1_234_567_890, "nanoseconds", "1.23s"},
		{-250_000_000, "nanoseconds", "-250ms"},
		{1_500, "nanoseconds", "1.5µs"},
		{999, "nanoseconds", "999ns"},
		{5_045_100, "microseconds", "5.05s"},
		{150_000_000_000, "nanoseconds", "150s"},
		{2048, "bytes", "2kB"},
		{3 << 20, "bytes", "3MB"},
		{185, "count", "185"},
		{-7, "", "-7"},
	}
	for _, tt := range tests {
		if got := FormatValue(tt.v, tt.unit); got != tt.want {
			t.Errorf("FormatValue(%d, %q) = %q, want %q", tt.v, tt.unit, got, tt.want)
		}
	}
}

func TestPercent(t *testing.T) {
	if got := percent(1, 3); got != "33.33%" {
		t.Errorf("percent(1, 3) = %s", got)
	}
	if got := percent(1, 0); got != "-" {
		t.Errorf("percent(1, 0) = %s", got)
	}
}
