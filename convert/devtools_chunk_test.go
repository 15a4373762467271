package convert

import (
	"encoding/json"
	"reflect"
	"testing"
)

// slowChunk decodes a chunk the encoding/json way, as chunkEvent does.
func slowChunk(raw []byte) (chunkFields, error) {
	f, err := decodeChunk(0, 0, raw)
	if err != nil {
		return chunkFields{}, err
	}
	return *f, nil
}

var chunkCases = []struct {
	name string
	raw  string
	fast bool // scanChunk takes it
}{
	{"chrome", `{"args":{"data":{"cpuProfile":{"nodes":[{"callFrame":{"functionName":"(root)","scriptId":0},"id":1},{"callFrame":{"functionName":"f","url":"u","lineNumber":3,"columnNumber":4,"scriptId":2,"codeType":"JS"},"id":2,"parent":1}],"samples":[2,2,1]},"timeDeltas":[4520,-145,157],"lines":[0,3,0]}},"cat":"disabled-by-default-v8.cpu_profiler","id":"0x2","name":"ProfileChunk","ph":"P","pid":9318,"tid":35847,"ts":459852395985,"tts":1}`, true},
	{"white space", " {\n\"name\" : \"ProfileChunk\" ,\t\"ts\":1.5e3, \"id\":7, \"args\":{ \"data\": { \"cpuProfile\": { \"samples\": [ 1 , 2 ] }, \"timeDeltas\": [ 1.25 , 2e1 ] } } } ", true},
	{"end chunk", `{"name":"ProfileChunk","id":"0x1","pid":1,"tid":2,"ts":3,"args":{"data":{"endTime":99}}}`, true},
	{"empty arrays", `{"name":"ProfileChunk","id":"0x1","ts":3,"args":{"data":{"cpuProfile":{"nodes":[],"samples":[]},"timeDeltas":[]}}}`, true},
	{"deltas in cpuProfile", `{"name":"ProfileChunk","id":1,"ts":3,"args":{"data":{"cpuProfile":{"samples":[1],"timeDeltas":[5]}}}}`, true},
	{"nodes for encoding/json", `{"name":"ProfileChunk","ts":3,"args":{"data":{"cpuProfile":{"nodes":[{"id":1,"callFrame":{"functionName":"\u00e9","url":"é"}},{"id":2,"parent":1,"callFrame":null,"hitCount":3,"children":[]}]}}}}`, true},
	{"no args", `{"name":"ProfileChunk","id":"0x1","ts":3}`, true},
	{"unknown values of every kind", `{"name":"ProfileChunk","x":[true,false,null,{"y":"\u00e9\n"},-0.5E-3],"ts":3,"args":{"z":{},"data":{}}}`, true},
	// The slow path decides these.
	{"null data", `{"name":"ProfileChunk","ts":3,"args":{"data":null}}`, false},
	{"escaped id", `{"name":"ProfileChunk","ts":3,"id":"0\u0078","args":{}}`, false},
	{"folded key", `{"name":"ProfileChunk","TS":3,"args":{}}`, false},
	{"repeated key", `{"name":"ProfileChunk","ts":3,"ts":4}`, false},
	{"fraction id", `{"name":"ProfileChunk","ts":3,"args":{"data":{"cpuProfile":{"samples":[1.5]},"timeDeltas":[1]}}}`, false},
	{"fraction pid", `{"name":"ProfileChunk","pid":1.5,"ts":3}`, false},
	{"bad escape", `{"name":"ProfileChunk","ts":3,"x":"\q"}`, false},
	{"trailing comma", `{"name":"ProfileChunk","ts":3,}`, false},
	{"leading zero", `{"name":"ProfileChunk","ts":03}`, false},
	{"huge delta", `{"name":"ProfileChunk","ts":3,"args":{"data":{"cpuProfile":{"samples":[1]},"timeDeltas":[1e300]}}}`, false},
	{"bad node", `{"name":"ProfileChunk","ts":3,"args":{"data":{"cpuProfile":{"nodes":[{"id":"x"}]}}}}`, false},
	{"garbage after", `{"name":"ProfileChunk","ts":3} x`, false},
}

// TestScanChunk checks that the fast path takes the usual shapes and
// reads them exactly as encoding/json does, and leaves the rest alone.
func TestScanChunk(t *testing.T) {
	for _, tc := range chunkCases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := scanChunk([]byte(tc.raw))
			if ok != tc.fast {
				t.Fatalf("scanChunk ok = %v, want %v", ok, tc.fast)
			}
			if !ok {
				return
			}
			want, err := slowChunk([]byte(tc.raw))
			if err != nil {
				t.Fatalf("the fast path took what encoding/json refuses: %v", err)
			}
			got.name = ""
			if !reflect.DeepEqual(got, want) {
				t.Errorf("fast %+v\nslow %+v", got, want)
			}
		})
	}
}

// FuzzScanChunk: whatever the fast path takes, the slow path takes too and
// reads the same.
func FuzzScanChunk(f *testing.F) {
	for _, tc := range chunkCases {
		f.Add([]byte(tc.raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, ok := scanChunk(raw)
		if !ok {
			return
		}
		if !json.Valid(raw) {
			t.Fatalf("the fast path took invalid JSON %q", raw)
		}
		want, err := slowChunk(raw)
		if err != nil {
			t.Fatalf("the fast path took %q, which encoding/json refuses: %v", raw, err)
		}
		got.name = ""
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q:\nfast %+v\nslow %+v", raw, got, want)
		}
	})
}
