package report

import (
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/diff"
)

func fr(fn, file string) diff.Frame { return diff.Frame{Function: fn, File: file} }

func TestFrameLabels(t *testing.T) {
	lines := map[diff.Frame]int64{fr("formatPrice", "file:///srv/web/storefront.js"): 21}
	for _, tt := range []struct {
		eco         Ecosystem
		f           diff.Frame
		label, full string
	}{
		{Go, fr("github.com/ctdiff/ctdiff/internal/example.checkRules", "/src/example/workload.go"),
			"example.checkRules", "github.com/ctdiff/ctdiff/internal/example.checkRules (/src/example/workload.go)"},
		{Go, fr("encoding/json.(*decodeState).object", "/go/src/encoding/json/decode.go"),
			"json.(*decodeState).object", "encoding/json.(*decodeState).object (/go/src/encoding/json/decode.go)"},
		{Go, fr("runtime.gcBgMarkWorker", ""), "runtime.gcBgMarkWorker", "runtime.gcBgMarkWorker"},
		{JS, fr("formatPrice", "file:///srv/web/storefront.js"),
			"formatPrice (storefront.js:21)", "formatPrice (file:///srv/web/storefront.js:21)"},
		{JS, fr("render", "https://cdn.example.com/app/main.4f2a.js?v=3#x"), "render (main.4f2a.js)", "render (https://cdn.example.com/app/main.4f2a.js?v=3#x)"},
		{JS, fr("Module._compile", "node:internal/modules/cjs/loader"),
			"Module._compile (node:internal/modules/cjs/loader)", "Module._compile (node:internal/modules/cjs/loader)"},
		{JS, fr("(garbage collector)", ""), "(garbage collector)", "(garbage collector)"},
		{JS, fr("", "file:///a.js"), "(unknown) (a.js)", "(unknown) (file:///a.js)"},
		{Java, fr("com.example.billing.InvoiceService.invoice", ""), "InvoiceService.invoice", "com.example.billing.InvoiceService.invoice"},
		{Java, fr("java.util.regex.Pattern$CharPredicate.negate", ""), "Pattern$CharPredicate.negate", "java.util.regex.Pattern$CharPredicate.negate"},
		{Java, fr("java.lang.String.<init>", ""), "String.<init>", "java.lang.String.<init>"},
		{Java, fr("libjvm.so!JavaCalls::call", ""), "libjvm.so!JavaCalls::call", "libjvm.so!JavaCalls::call"},
		{Native, fr("RtlUserThreadStart", `C:\Windows\System32\ntdll.dll`), "ntdll.dll!RtlUserThreadStart", "ntdll.dll!RtlUserThreadStart"},
		{Native, fr("ntoskrnl.exe!0xfffff80312345678", ""), "ntoskrnl.exe!0xfffff80312345678", "ntoskrnl.exe!0xfffff80312345678"},
		{UnknownEcosystem, fr("main", ""), "main", "main"},
	} {
		s := frameStyle{Ecosystem: tt.eco, Lines: lines, Placed: true}
		if got := s.Label(tt.f); got != tt.label {
			t.Errorf("%s Label(%v) = %q, want %q", tt.eco.Title(), tt.f, got, tt.label)
		}
		if got := s.Full(tt.f); got != tt.full {
			t.Errorf("%s Full(%v) = %q, want %q", tt.eco.Title(), tt.f, got, tt.full)
		}
	}
}

func TestDetectEcosystem(t *testing.T) {
	path := func(fs ...diff.Frame) *diff.Result {
		return &diff.Result{Causes: []diff.Cause{{Path: fs}}}
	}
	for _, tt := range []struct {
		name string
		res  *diff.Result
		want Ecosystem
	}{
		{"go", path(fr("runtime.main", ""), fr("main.main", "/src/main.go"), fr("github.com/a/b.F", "/src/b.go")), Go},
		{"js", path(fr("(program)", ""), fr("main", "file:///x.js"), fr("Module._load", "node:internal/modules/cjs/loader")), JS},
		{"java", path(fr("com.example.billing.BillingJob.main", ""), fr("java.lang.String.replaceAll", "")), Java},
		{"native", path(fr("RtlUserThreadStart", "ntdll.dll"), fr("kernel32.dll!BaseThreadInitThunk", "")), Native},
		{"native frames under Java", path(fr("com.example.A.b", ""), fr("java.lang.Thread.run", ""), fr("libc.so.6!write", "")), Java},
		{"unknown", path(fr("a", ""), fr("b", "")), UnknownEcosystem},
		{"empty", &diff.Result{}, UnknownEcosystem},
	} {
		if got := detectEcosystem(tt.res); got != tt.want {
			t.Errorf("%s: detectEcosystem = %q, want %q", tt.name, got, tt.want)
		}
	}
	for format, want := range map[string]Ecosystem{"cpuprofile": JS, "devtools": JS, "jfr": Java, "xperf": Native, "pprof": UnknownEcosystem} {
		if got := FormatEcosystem(format); got != want {
			t.Errorf("FormatEcosystem(%q) = %q, want %q", format, got, want)
		}
	}
}

// Runtime frames above a cause fold into one labelled part; the cause's own
// frame stays.
func TestPathParts(t *testing.T) {
	node := func(fn string) diff.Frame { return fr(fn, "node:internal/modules/cjs/loader") }
	js := func(fn string) diff.Frame { return fr(fn, "file:///srv/storefront.js") }
	style := frameStyle{Ecosystem: JS, Placed: true}
	p := []diff.Frame{node("executeUserEntryPoint"), node("Module._load"), node("Module._compile"), js("main"), js("renderPage"), js("formatPrice")}
	var labels []string
	for _, part := range style.Parts(p) {
		labels = append(labels, part.Label)
	}
	if got, want := strings.Join(labels, " → "), "[Node.js internals ×3] → main (storefront.js) → renderPage (storefront.js) → formatPrice (storefront.js)"; got != want {
		t.Errorf("parts %q, want %q", got, want)
	}

	goPath := []diff.Frame{fr("runtime.main", ""), fr("main.main", ""), fr("main.parse", ""), fr("runtime.growslice", ""), fr("runtime.mallocgc", "")}
	parts := frameStyle{Ecosystem: Go, Placed: true}.Parts(goPath)
	labels = labels[:0]
	for _, part := range parts {
		labels = append(labels, part.Label)
	}
	if got, want := strings.Join(labels, " → "), "[runtime] → main.main → main.parse → [allocation] → runtime.mallocgc"; got != want {
		t.Errorf("parts %q, want %q", got, want)
	}
	if g := parts[len(parts)-1].Group; g != "allocation" {
		t.Errorf("the leaf's group is %q, want allocation", g)
	}
}

// Diff reports use the unplaced style: the function alone, short unless
// whole, whatever the ecosystem the frame looks like; the Java names are
// shortened as release reports shorten them (javaClass).
func TestFrameNames(t *testing.T) {
	for _, tt := range []struct {
		f           diff.Frame
		short, full string
	}{
		{fr("github.com/ctdiff/ctdiff/internal/example.checkRules", "/src/example/workload.go"),
			"example.checkRules", "github.com/ctdiff/ctdiff/internal/example.checkRules"},
		{fr("formatPrice", "file:///srv/web/storefront.js"), "formatPrice", "formatPrice"},
		{fr("RtlUserThreadStart", `C:\Windows\System32\ntdll.dll`), "RtlUserThreadStart", "RtlUserThreadStart"},
		{fr("com.example.billing.InvoiceService.invoice", ""), "InvoiceService.invoice", "com.example.billing.InvoiceService.invoice"},
		{fr("", "a.go"), "(unknown)", "(unknown)"},
	} {
		if got := frameName(tt.f, false); got != tt.short {
			t.Errorf("frameName(%v, false) = %q, want %q", tt.f, got, tt.short)
		}
		if got := frameName(tt.f, true); got != tt.full {
			t.Errorf("frameName(%v, true) = %q, want %q", tt.f, got, tt.full)
		}
		placed := frameStyle{Ecosystem: Java, Placed: true}.Label(tt.f)
		if javaName(tt.f.Function) && placed != tt.short {
			t.Errorf("a Java name is %q in diff reports, %q in release reports", tt.short, placed)
		}
	}
}
