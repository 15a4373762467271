package diff

import (
	"strings"
	"testing"
)

// TestSharedAndSymbolWarnings: sides that share little time, and one side
// unsymbolized, are compared with a warning that says so;
// versions of one program, and two sides unsymbolized alike, are not.
func TestSharedAndSymbolWarnings(t *testing.T) {
	same := "main;handle;encode 600\nmain;handle;query 400\nmain;parse 200"
	for _, tt := range []struct {
		name     string
		old, new string
		want     []string // substrings, one warning each; none when nil
	}{
		{name: "versions of one program", old: same, new: "main;handle;encode 900\nmain;handle;query 400\nmain;parse 200"},
		{name: "unrelated programs", old: same, new: "run;serve;render 700\nrun;serve;fetch 500",
			want: []string{"share little: 0.00% of the base's time and 0.00% of the new's"}},
		{name: "the new build stripped",
			old:  same,
			new:  "main;handle;shop!0x4c1a20 600\nmain;handle;query 400\nmain;parse 200",
			want: []string{"more of the new runs' (50.0%) time is in unsymbolized frames (shop!0x4c1a20) than the base's 0.00%"}},
		{name: "the base stripped, bare addresses",
			old:  "main;handle;0x4c1a20 600\nmain;handle;query 400\nmain;parse 200",
			new:  same,
			want: []string{"more of the base runs' (50.0%) time is in unsymbolized frames (0x4c1a20)"}},
		{name: "both sides alike unsymbolized",
			old: "main;handle;libc.so!0x10 300\nmain;handle;query 400",
			new: "main;handle;libc.so!0x10 300\nmain;handle;query 420"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := compare(t, trees(t, tt.old), trees(t, tt.new), Options{})
			var got []string
			for _, w := range res.Warnings {
				if strings.Contains(w, "share little") || strings.Contains(w, "unsymbolized") {
					got = append(got, w)
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("warnings %q, want %d containing %q", got, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("warning %q, want it to contain %q", got[i], w)
				}
			}
		})
	}
}

func TestUnsymbolizedName(t *testing.T) {
	for name, want := range map[string]bool{
		"shop!0x4c1a20": true, "0x4c1a20": true, "ntoskrnl.exe!0x81ceec6f": true, "nvlddmkm.sys!?": true,
		"main.handle": false, "kernel32.dll!CreateFileW": false, "0xdeadbeefcafe_f": false, "": false,
	} {
		if got := unsymbolizedName.MatchString(name) && name != ""; got != want {
			t.Errorf("%q: unsymbolized %v, want %v", name, got, want)
		}
	}
}
