package eval

import "strings"

// The origins: the same script served from another origin
// (worker.js from 172.30.3.176:7777 and from 127.0.0.1:8081). In the
// Origins family every script URL of the new runs gets newOrigin in place
// of its scheme, host and port; the path stays. A baseline must then diff
// as it diffs with itself, and an injected case must be found as if
// nothing had moved. The truth keeps the base's URLs: diff shows a frame
// as first seen, which is the base's.
const newOrigin = "http://127.0.0.1:8081"

// originOf returns the scheme-host-port prefix of a URL ("" if file has
// none): what comes before the first "/" after "://".
func originOf(file string) string {
	i := strings.Index(file, "://")
	if i <= 0 {
		return ""
	}
	j := strings.IndexByte(file[i+3:], '/')
	if j < 0 {
		return ""
	}
	return file[:i+3+j]
}

// moveOrigins maps every file of the template that has an origin to the
// same path on newOrigin; nil if none has one.
func moveOrigins(frames []Frame) map[string]string {
	var out map[string]string
	for _, f := range frames {
		o := originOf(f.File)
		if o == "" || o == newOrigin {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[f.File] = newOrigin + f.File[len(o):]
	}
	return out
}
