package convert

import "testing"

func TestStableJavaName(t *testing.T) {
	tests := []struct{ cls, method, want string }{
		{"java.lang.Thread", "run", "java.lang.Thread.run"},
		{"kafka.server.KafkaApis$$Lambda$1368.0x000000080156d400", "apply", "kafka.server.KafkaApis$$Lambda_.apply"},
		{"Fib$$Lambda.0x00007ffa600c4da0", "run", "Fib$$Lambda_.run"},
		{"Heavy$$Lambda+0x000001c39a007200.2136288211", "getAsInt", "Heavy$$Lambda_.getAsInt"},
		{"jdk.internal.reflect.GeneratedMethodAccessor31", "invoke", "jdk.internal.reflect.GeneratedMethodAccessor_.invoke"},
		{"sun.reflect.GeneratedConstructorAccessor7", "newInstance", "sun.reflect.GeneratedConstructorAccessor_.newInstance"},
		{"com.example.Service$$EnhancerBySpringCGLIB$$5e3b1a2", "call", "com.example.Service$$EnhancerBySpringCGLIB$$_.call"},
		{"java.lang.invoke.LambdaForm$DMH.0x0000000801578c00", "newInvokeSpecial", "java.lang.invoke.LambdaForm$DMH.0x0000000801578c00.newInvokeSpecial"},
		{"libzstd-jni-1.5.1-16931311898282279136.so", "Java_com_github_luben_zstd_Zstd_decompress", "libzstd-jni-_.so.Java_com_github_luben_zstd_Zstd_decompress"},
		{"", "/tmp/libasyncProfiler-linux-x64-17b9a1d8156277a98ccc871afa9a8f69215f92.so", ".libasyncProfiler-_.so"},
		{"", "unknown_Java", ".unknown_Java"},
		{"libjvm.so", "G1CMTask::do_marking_step", "libjvm.so.G1CMTask::do_marking_step"},
	}
	for _, tc := range tests {
		if got := stableJavaName(tc.cls, tc.method); got != tc.want {
			t.Errorf("stableJavaName(%q, %q) = %q, want %q", tc.cls, tc.method, got, tc.want)
		}
	}
}

func TestJFRFrameKind(t *testing.T) {
	for desc, want := range map[string]string{
		"Interpreted": "_[0]", "JIT compiled": "_[j]", "Inlined": "_[i]", "C1 compiled": "_[1]",
		"Kernel": "_[k]", "Native": "_[n]", "C++": "_[c]", "Something new": "_[Something new]", "": "",
	} {
		if got := jfrFrameKind(desc); got != want {
			t.Errorf("jfrFrameKind(%q) = %q, want %q", desc, got, want)
		}
	}
}

func TestParseJFRDuration(t *testing.T) {
	for in, want := range map[string]int64{"20 ms": 20e6, "10 ms": 10e6, "1 s": 1e9, "500 us": 500e3, "7 ns": 7, "2 m": 120e9} {
		if got, ok := parseJFRDuration(in); !ok || got != want {
			t.Errorf("parseJFRDuration(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "20", "20 parsecs", "-1 ms", "x ms", "everyChunk", "99999999999999 d"} {
		if got, ok := parseJFRDuration(in); ok {
			t.Errorf("parseJFRDuration(%q) = %d, want failure", in, got)
		}
	}
}
