package convert

import "testing"

// TestDemangleHalfDemangledRust: perf leaves legacy Rust escapes in names
// it demangled halfway; they are finished as rustc-demangle does, and
// names without them are left alone.
func TestDemangleHalfDemangledRust(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"_$LT$core..result..Result$LT$T$C$$u20$E$GT$$GT$::and_then::h47fa4b8545196b9b", "<core::result::Result<T, E>>::and_then"},
		{"log::set_logger::_$u7b$$u7b$closure$u7d$$u7d$::hcb7821323b596727", "log::set_logger::{{closure}}"},
		{"_$LT$$RF$$u27$a$u20$mut$u20$I$u20$as$u20$core..iter..iterator..Iterator$GT$::next::h7e7c4b3a79f55d8f", "<&'a mut I as core::iter::iterator::Iterator>::next"},
		{"core::ptr::_$LT$impl$u20$$BP$mut$u20$T$GT$::offset::h1234567890abcdef", "core::ptr::<impl *mut T>::offset"},
		{"_$LT$$LT$A$u20$as$u20$B$GT$..f..Adapter$LT$I$GT$$u20$as$u20$C$GT$::next", "<<A as B>::f::Adapter<I> as C>::next"},
		{"x::$SP$y$LP$z$RP$$u2603$", "x::@y(z)☃"},
		// Not Rust escapes: kept.
		{"java.util.HashMap$Node.find", "java.util.HashMap$Node.find"},
		{"Foo$$Lambda$12.run", "Foo$$Lambda$12.run"},
		{"range..end", "range..end"},
		{"a$LT$b$uZZ$c", "a<b$uZZ$c"},
		// A mangled name the demangler panics on (FuzzSimpleFrameLine):
		// kept as written.
		{"_ZW3A00", "_ZW3A00"},
		{"__ZW3A00", "__ZW3A00"},
	} {
		if got := demangleSymbol(tc.in); got != tc.want {
			t.Errorf("demangleSymbol(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
