package pyroscope

import (
	"fmt"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		raw, want string
	}{
		{`pyroscope+http://pyro:4040/?query={service_name="api"}&type=process_cpu:cpu:nanoseconds:cpu:nanoseconds&from=1000&until=1180&windows=3`,
			`http://pyro:4040 {service_name="api"} process_cpu:cpu:nanoseconds:cpu:nanoseconds 1000000-1060000 1060000-1120000 1120000-1180000`},
		{`pyroscope+https://pyro.example/prefix/?query=%7Bservice_name%3D%22api%22%7D&type=t&from=2026-03-01T10:00:00Z&until=2026-03-01T10:00:01Z`,
			`https://pyro.example/prefix {service_name="api"} t 1772359200000-1772359201000`},
		// 1000 ms in 3 windows: the bounds tile the range.
		{`pyroscope+http://h:1/?query=x&type=t&from=1&until=2&windows=3`,
			`http://h:1 x t 1000-1333 1333-1666 1666-2000`},
	}
	for _, tt := range tests {
		q, err := Parse(tt.raw)
		if err != nil {
			t.Fatalf("%s: %v", tt.raw, err)
		}
		got := fmt.Sprint(q.BaseURL, " ", q.Selector, " ", q.ProfileType)
		for i := range q.Windows {
			s, e := q.Window(i)
			got += fmt.Sprintf(" %d-%d", s, e)
		}
		if got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.raw, got, tt.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		raw, want string
	}{
		{"pyroscope+http://h:1/?query=x&type=t&from=1&until=2&windows=0", "windows=0: expected a whole number from 1 to 10000"},
		{"pyroscope+http://h:1/?query=x&type=t&from=1&until=2&windows=2000", "[from, until) is shorter than 2000 windows of a millisecond, the server's resolution"},
		{"pyroscope+http://h:1/?query=x&type=t&until=2", "from is required (Unix seconds or RFC 3339)"},
		{"pyroscope+http://h:1/?query=x&type=t&from=-5&until=2", "from=-5: out of range"},
		{"pyroscope+http:///?query=x", "expected pyroscope+http://HOST:PORT/?query=SELECTOR&type=PROFILE_TYPE&from=T&until=T&windows=K"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.raw)
		if want := tt.raw + ": " + tt.want; err == nil || err.Error() != want {
			t.Errorf("error %v\n      want %s", err, want)
		}
	}
}

// TestCleartext: credentials sent over plain http:// to another machine can
// be read on the way, which a user sending a token should hear about; a
// port forwarded to this machine's loopback, or TLS, is not that case.
func TestCleartext(t *testing.T) {
	token := Auth{Token: "t"}
	basic := Auth{User: "u", Password: "p"}
	for _, tc := range []struct {
		arg  string
		auth Auth
		want bool
	}{
		{"pyroscope+http://pyro.example:4040/?query=x&type=t&from=1&until=2", token, true},
		{"pyroscope+http://10.0.0.7:4040/prefix/?query=x&type=t&from=1&until=2", basic, true},
		{"pyroscope+https://pyro.example/?query=x&type=t&from=1&until=2", token, false},
		{"pyroscope+http://pyro.example:4040/?query=x&type=t&from=1&until=2", Auth{Tenant: "acme"}, false},
		{"pyroscope+http://127.0.0.1:4040/?query=x&type=t&from=1&until=2", token, false},
		{"pyroscope+http://localhost:4040/?query=x&type=t&from=1&until=2", token, false},
		{"pyroscope+http://[::1]:4040/?query=x&type=t&from=1&until=2", token, false},
	} {
		q, err := Parse(tc.arg)
		if err != nil {
			t.Fatal(err)
		}
		if got := q.Cleartext(tc.auth); got != tc.want {
			t.Errorf("Cleartext(%s, %+v) = %v, want %v", tc.arg, tc.auth, got, tc.want)
		}
	}
}
