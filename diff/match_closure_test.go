package diff

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
)

func TestClosureTags(t *testing.T) {
	for _, tt := range []struct {
		name  string
		group string // "" for no closure
		num   int32
	}{
		{"github.com/acme/shop.(*Server).handle.func2", "github.com/acme/shop.(*Server).handle.func", 2},
		{"main.main.func1.3", "main.main.func1.", 3},
		{"net/http.(*Server).Serve.gowrap3", "net/http.(*Server).Serve.gowrap", 3},
		{"main.run.deferwrap1", "main.run.deferwrap", 1},
		{"com.acme.Shop.lambda$handle$12", "com.acme.Shop.lambda$handle$", 12},
		{"main.handler", "", 0},
		{"crypto/sha256.block", "", 0},
		{"main.f2", "", 0},     // a name that ends in a digit, no closure
		{"main.func2", "", 0},  // a function named func2 (no enclosing function)
		{"(anonymous)", "", 0}, // JavaScript's: told apart by position (identity.go)
	} {
		t.Run(tt.name, func(t *testing.T) {
			kt := newKeyTable()
			k := kt.intern(cct.Frame{Function: tt.name}, 0)
			tag := kt.closureOf(k)
			if tt.group == "" {
				if tag.group != 0 {
					t.Errorf("tagged %+v, want no closure", tag)
				}
				return
			}
			if tag.group == 0 || tag.num != tt.num {
				t.Fatalf("tag %+v, want group %q number %d", tag, tt.group, tt.num)
			}
			if _, ok := kt.groups[tt.group+"\x00"]; !ok {
				t.Errorf("groups %v lack %q", kt.groups, tt.group)
			}
		})
	}
}

// TestClosureRenumbering: a closure added above two others renumbers them
// (handle.func1 is handle.func2 after); they must still pair by what they
// call, one run a side (the pair's matching, matchTrees) and three (the
// union's, matchPass).
func TestClosureRenumbering(t *testing.T) {
	const (
		h   = "main.main;main.handle"
		enc = "encode"
		qry = "query"
	)
	side := func(lines ...string) string { return strings.Join(lines, "\n") }
	before := side(h+";main.handle.func1;"+enc+" 600", h+";main.handle.func2;"+qry+" 400", h+" 100")
	after := side(h+";main.handle.func1 5", h+";main.handle.func2;"+enc+" 600", h+";main.handle.func3;"+qry+" 400", h+" 100")
	slower := side(h+";main.handle.func1 5", h+";main.handle.func2;"+enc+" 900", h+";main.handle.func3;"+qry+" 400", h+" 100")
	lambdas := func(enc string) string {
		return side("Main.run;Shop.handle;Shop.lambda$handle$0 5", "Main.run;Shop.handle;Shop.lambda$handle$1;Codec.encode "+enc, "Main.run;Shop.handle;Shop.lambda$handle$2;Db.query 400")
	}
	for _, tt := range []struct {
		name     string
		old, new string
		// causes at one run a side and, where Stats reports otherwise,
		// at three (nil: the same)
		causes, causes3 []string
	}{
		{name: "renumbered, nothing slower", old: before, new: after},
		{name: "renumbered, the encoder slower", old: before, new: slower,
			causes: []string{"regressed 300 main.main;main.handle;main.handle.func2;encode"}},
		{name: "Java lambdas renumbered", old: side("Main.run;Shop.handle;Shop.lambda$handle$0;Codec.encode 600", "Main.run;Shop.handle;Shop.lambda$handle$1;Db.query 400"), new: lambdas("600")},
		{name: "a closure one side did not sample keeps its neighbours' names",
			old:    side(h+";main.handle.func1;"+enc+" 600", h+";main.handle.func2;log 80", h+";main.handle.func3;"+qry+" 400"),
			new:    side(h+";main.handle.func1;"+enc+" 600", h+";main.handle.func3;"+qry+" 400"),
			causes: nil},
		{name: "a closure whose sampled callees differ keeps its name",
			old:    side(h+";main.handle.func1;"+enc+" 300", h+";main.handle.func1;b 20", h+";main.handle.func1;c 20", h+";main.handle.func2;log 80"),
			new:    side(h+";main.handle.func1;"+enc+" 300", h+";main.handle.func1;d 20", h+";main.handle.func1;e 20"),
			causes: nil},
		{name: "closures whose callees differ keep their names",
			old:    side(h+";main.handle.func1;"+enc+" 600", h+";main.handle.func2;"+qry+" 400"),
			new:    side(h+";main.handle.func1;"+enc+" 600", h+";main.handle.func2;"+qry+" 400", h+";main.handle.func3;render 300"),
			causes: []string{"added 300 main.main;main.handle;main.handle.func3"}, causes3: []string{"added 300 main.main;main.handle;main.handle.func3;render"}},
	} {
		for _, runs := range []int{1, 3} {
			t.Run(fmt.Sprintf("%s/%d runs", tt.name, runs), func(t *testing.T) {
				var olds, news []string
				for i := range runs {
					// a few ms of jitter per run, so that three runs vary
					olds = append(olds, tt.old+fmt.Sprintf("\nmain;idle %d", 50+i))
					news = append(news, tt.new+fmt.Sprintf("\nmain;idle %d", 50+2*i))
				}
				o := Options{Aggregate: Intersect}
				if runs > 1 {
					o = Options{}
				}
				res := compare(t, trees(t, olds...), trees(t, news...), o)
				got := leafLines(res)
				if runs > 1 {
					got = causeLines(res)
				}
				want := tt.causes
				if runs > 1 && tt.causes3 != nil {
					want = tt.causes3
				}
				if !slices.Equal(got, want) {
					t.Errorf("causes %q, want %q", got, want)
				}
			})
		}
	}
}

func TestRenamesKeepKeysDistinct(t *testing.T) {
	for _, tt := range []struct {
		name   string
		ku, kr []key
		pairs  []pair
		want   bool
	}{
		{"no rename", []key{1, 2}, []key{1, 2}, []pair{{0, 0}, {1, 1}}, true},
		{"a shift down", []key{1, 2}, []key{1, 2, 3}, []pair{{0, 1}, {1, 2}}, true},
		{"onto a name an unpaired child keeps", []key{2, 3, 1}, []key{1, 2}, []pair{{0, 0}, {1, 1}}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := renamesKeepKeysDistinct(tt.ku, tt.kr, tt.pairs); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
