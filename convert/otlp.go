package convert

import (
	"bytes"
	"fmt"

	"github.com/google/pprof/profile"
	"go.opentelemetry.io/collector/pdata/pprofile"
)

// otlp reads OpenTelemetry profiles: a ProfilesData (or an export request,
// which has the same fields) in protobuf or OTLP/JSON. Compression was
// already undone by Read. Every profile of every resource and scope
// becomes part of one pprof profile (otlpReader).
func init() {
	register(inputFormat{
		Name:        "otlp",
		Description: "OpenTelemetry profiles (OTLP ProfilesData, protobuf or JSON, gzipped or not)",
		Priority:    56,
		Sniff:       sniffOTLP,
		Parse:       parseOTLP,
	})
}

// sniffOTLP accepts OTLP/JSON (an object whose first key is
// "resourceProfiles" or "dictionary") and protobuf whose top-level fields
// are a ProfilesData's (otlpProtoHead).
func sniffOTLP(head []byte) bool {
	if t := bytes.TrimLeft(head, " \t\r\n"); len(t) > 0 && t[0] == '{' {
		t = bytes.TrimLeft(t[1:], " \t\r\n")
		return bytes.HasPrefix(t, []byte(`"resourceProfiles"`)) || bytes.HasPrefix(t, []byte(`"dictionary"`))
	}
	return otlpProtoHead(head)
}

// otlpProtoHead reports whether head starts like a protobuf ProfilesData:
// resource_profiles (field 1) or the dictionary (field 2), each a message
// whose own fields are messages, strings or packed lists (wire type 2).
// pprof's field 1 is a sample type, whose fields are varints, and its
// field 2 a sample, whose fields are 1-3: a first field 2 whose message
// starts with a field 4-7 (links, strings, attributes, stacks) is a
// dictionary, and one that starts with 1-3 is one when field 1 follows.
func otlpProtoHead(head []byte) bool {
	if len(head) < 3 || (head[0] != 0x0a && head[0] != 0x12) {
		return false
	}
	n, size := uvarint(head[1:])
	if size <= 0 || n == 0 || 1+size >= len(head) {
		return false
	}
	inner := head[1+size:]
	field, wire := inner[0]>>3, inner[0]&7
	if wire != 2 {
		return false
	}
	if head[0] == 0x0a {
		return field >= 1 && field <= 3
	}
	if field >= 4 && field <= 7 {
		return true
	}
	if field < 1 || n >= uint64(len(inner)) {
		return false
	}
	next := inner[n:]
	return next[0] == 0x0a && otlpProtoHead(next)
}

// uvarint is binary.Uvarint without the import: the value and the bytes
// it took, 0 bytes when head ends first or the varint is too long.
func uvarint(head []byte) (uint64, int) {
	var v uint64
	for i, b := range head {
		if i == 10 {
			return 0, 0
		}
		v |= uint64(b&0x7f) << (7 * i)
		if b < 0x80 {
			return v, i + 1
		}
	}
	return 0, 0
}

func parseOTLP(in *parserInput) (p *profile.Profile, err error) {
	data, err := in.ReadAll()
	if err != nil {
		return nil, err
	}
	pd, err := unmarshalOTLP(data)
	if err != nil {
		return nil, err
	}
	r := newOTLPReader(in, pd)
	return r.read()
}

// unmarshalOTLP decodes data as OTLP/JSON when it starts with an object,
// else as protobuf.
func unmarshalOTLP(data []byte) (pd pprofile.Profiles, err error) {
	json := len(bytes.TrimLeft(data, " \t\r\n")) > 0 && bytes.TrimLeft(data, " \t\r\n")[0] == '{'
	kind := "protobuf"
	if json {
		kind = "JSON"
	}
	defer func() {
		// The decoders are generated code that must not panic on any
		// input; a panic is still an error about this input, never a crash.
		if r := recover(); r != nil {
			err = fmt.Errorf("not a valid OTLP profile (%s): the decoder failed: %v", kind, r)
		}
	}()
	if json {
		pd, err = (&pprofile.JSONUnmarshaler{}).UnmarshalProfiles(data)
	} else {
		pd, err = (&pprofile.ProtoUnmarshaler{}).UnmarshalProfiles(data)
	}
	if err != nil {
		return pd, fmt.Errorf("not a valid OTLP profile (%s): %v", kind, err)
	}
	return pd, nil
}
