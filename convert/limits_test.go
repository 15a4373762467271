package convert

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

func TestNegativeValueRejected(t *testing.T) {
	fn := &profile.Function{ID: 1, Name: "f"}
	loc := &profile.Location{ID: 1, Line: []profile.Line{{Function: fn}}}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		Function:   []*profile.Function{fn},
		Location:   []*profile.Location{loc},
		Sample: []*profile.Sample{
			{Location: []*profile.Location{loc}, Value: []int64{1, 10}},
			{Location: []*profile.Location{loc}, Value: []int64{1, -5}},
		},
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	_, err := Read(&buf, "diff.pb.gz", Options{})
	want := "diff.pb.gz: sample 1: negative sample value: cpu/nanoseconds is -5; ctdiff needs counts and times"
	if !errors.Is(err, errNegativeValue) || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("error %v, want prefix %q", err, want)
	}
}

func TestStackDepthLimit(t *testing.T) {
	deep := func(n int) string {
		return strings.Repeat("f;", n-1) + "f 1\n"
	}
	res, err := Read(strings.NewReader(deep(100_000)), "deep.folded", Options{})
	if err != nil {
		t.Fatalf("100,000 frames: %v", err)
	}
	if got := len(res.Profile.Sample[0].Location); got != 100_000 {
		t.Fatalf("100,000 frames read as %d", got)
	}
	_, err = Read(strings.NewReader(deep(MaxStackDepth+1)), "deeper.folded", Options{})
	want := "deeper.folded: sample 0: stack frames exceed the limit: a stack of 1000001 frames, more than the limit of 1000000 per stack"
	if !errors.Is(err, errStackLimit) || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("error %v, want prefix %q", err, want)
	}
}

func TestStackBudget(t *testing.T) {
	if got := stackFrameLimit(0); got != minStackFrames {
		t.Errorf("limit for 0 bytes = %d, want the floor %d", got, minStackFrames)
	}
	if got, want := stackFrameLimit(1<<30), int64(stackFramesPerByte)<<30; got != want {
		t.Errorf("limit for 1 GiB = %d, want %d", got, want)
	}
	b := &stackBudget{limit: 10}
	for range 5 {
		if err := b.take(2); err != nil {
			t.Fatalf("within the budget: %v", err)
		}
	}
	if err := b.take(1); !errors.Is(err, errStackLimit) || !strings.Contains(err.Error(), "more than 10 frames in total") {
		t.Fatalf("over the budget: %v", err)
	}
}

// A .cpuprofile whose nodes form one chain, each node sampled once: the
// input grows linearly, the frames of its stacks quadratically.
func chainCpuprofile(nodes int) []byte {
	var b strings.Builder
	b.WriteString(`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"}}`)
	for i := 2; i <= nodes+1; i++ {
		fmt.Fprintf(&b, `,{"id":%d,"parent":%d,"callFrame":{"functionName":"f%d"}}`, i, i-1, i)
	}
	b.WriteString(`],"startTime":0,"endTime":1000000000,"samples":[`)
	for i := 2; i <= nodes+1; i++ {
		if i > 2 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(i))
	}
	b.WriteString(`],"timeDeltas":[`)
	b.WriteString(strings.TrimSuffix(strings.Repeat("10,", nodes), ","))
	b.WriteString("]}")
	return []byte(b.String())
}

func TestTreeStackBudget(t *testing.T) {
	// 3,000 nodes: 4.5 million frames, well within the budget.
	res, err := Read(bytes.NewReader(chainCpuprofile(3000)), "chain.cpuprofile", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(res.Profile.Sample[len(res.Profile.Sample)-1].Location); got != 3000 {
		t.Fatalf("the deepest sample has %d frames, want 3000", got)
	}
	// 17,000 nodes: 144 million frames from a 1 MB file, refused before
	// any stack is built (building them would take over 1 GB).
	_, err = Read(bytes.NewReader(chainCpuprofile(17_000)), "chain.cpuprofile", Options{})
	want := "chain.cpuprofile: the profile: stack frames exceed the limit: the stacks hold more than 134217728 frames in total"
	if !errors.Is(err, errStackLimit) || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("error %v, want prefix %q", err, want)
	}
}

// stackDepth must count exactly the frames stack builds, (root) rules
// included, on trees of any shape.
func TestV8StackDepth(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 50 {
		tr := newV8Tree(func(pos int64, format string, args ...any) error { return fmt.Errorf(format, args...) })
		n := 1 + rng.IntN(200)
		for i := range n {
			nd := v8NewNode{node: v8TreeNode{id: int64(i), hits: -1}, frame: v8Frame{name: fmt.Sprintf("f%d", i)}}
			if rng.IntN(4) == 0 {
				nd.frame.name = rootName
			}
			if i > 0 && rng.IntN(10) > 0 {
				nd.node.parentID, nd.node.hasParent = int64(rng.IntN(i)), true
			}
			if err := tr.insert(nd); err != nil {
				t.Fatal(err)
			}
		}
		if err := tr.finish(); err != nil {
			t.Fatal(err)
		}
		b := newProfileBuilder()
		for _, i := range rng.Perm(n) {
			frames, _ := tr.walk(int32(i), b, nil, nil)
			if got, want := tr.stackDepth(int32(i)), len(frames); got != want {
				t.Fatalf("trial %d, node %d: stackDepth %d, stack has %d frames", trial, i, got, want)
			}
		}
	}
}

// chainPerfView is a PerfView stack file whose stacks form one CallerID
// chain, every stack sampled once.
func chainPerfView(n int) []byte {
	var b strings.Builder
	b.WriteString("<StackWindow><StackSource><Frames>")
	for i := range n {
		fmt.Fprintf(&b, `<Frame ID="%d">m!f%d</Frame>`, i, i)
	}
	b.WriteString("</Frames><Stacks>")
	for i := range n {
		fmt.Fprintf(&b, `<Stack ID="%d" CallerID="%d" FrameID="%d"/>`, i, i-1, i)
	}
	b.WriteString("</Stacks><Samples>")
	for i := range n {
		fmt.Fprintf(&b, `<Sample ID="%d" Time="%d" StackID="%d"/>`, i, i, i)
	}
	b.WriteString("</Samples></StackSource></StackWindow>")
	return []byte(b.String())
}

func TestPerfViewStackBudget(t *testing.T) {
	res, err := Read(bytes.NewReader(chainPerfView(2000)), "chain.perfView.xml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(res.Profile.Sample); got != 2000 {
		t.Fatalf("%d samples, want 2000", got)
	}
	// 17,000 stacks: 144 million frames, refused before they are walked.
	_, err = Read(bytes.NewReader(chainPerfView(17_000)), "chain.perfView.xml", Options{})
	if !errors.Is(err, errStackLimit) || !strings.HasPrefix(err.Error(), "chain.perfView.xml: line 1: stack frames exceed the limit: the stacks hold more than") {
		t.Fatalf("error %v, want the stack limit at a line", err)
	}
}

// depth must count exactly the frames chain walks, on any CallerID graph
// without loops.
func TestPerfViewDepth(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 50 {
		pv := newPerfView(&parserInput{Options: &Options{}})
		n := 1 + rng.IntN(200)
		for i := range int32(n) {
			pv.frames[i] = fmt.Sprint("f", i)
			caller := int32(-1)
			if i > 0 && rng.IntN(8) > 0 {
				caller = rng.Int32N(i)
			}
			pv.stacks[i] = perfViewStack{caller: caller, frame: i}
		}
		depths := map[int32]int{}
		for _, i := range rng.Perm(n) {
			chain, _, err := pv.chain(int32(i), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := pv.depth(int32(i), depths); got != len(chain) {
				t.Fatalf("trial %d, stack %d: depth %d, chain has %d frames", trial, i, got, len(chain))
			}
		}
	}
}

// chainCCT is a ctdiff.cct/v1 tree whose function nodes form one chain,
// each with self time: one sample per node, each holding its whole path.
func chainCCT(n int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `{"schema":"ctdiff.cct/v1","sample_types":[{"type":"cpu","unit":"nanoseconds"}],"nodes":[`+
		`{"id":0,"kind":"root","parent":-1,"self":[0],"total":[%d],"children":[1]}`, n)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `,{"id":%d,"function":"f%d","parent":%d,"self":[1],"total":[%d]`, i, i, i-1, n-i+1)
		if i < n {
			fmt.Fprintf(&b, `,"children":[%d]`, i+1)
		}
		b.WriteString("}")
	}
	b.WriteString("]}")
	return []byte(b.String())
}

func TestCCTDumpStackBudget(t *testing.T) {
	res, err := Read(bytes.NewReader(chainCCT(2000)), "chain.json", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(res.Profile.Sample); got != 2000 {
		t.Fatalf("%d samples, want 2000", got)
	}
	_, err = Read(bytes.NewReader(chainCCT(17_000)), "chain.json", Options{})
	if !errors.Is(err, errStackLimit) || !strings.HasPrefix(err.Error(), "chain.json: node 16") {
		t.Fatalf("error %v, want the stack limit at a node", err)
	}
}

func TestValueOverflowRejected(t *testing.T) {
	_, err := Read(strings.NewReader("a 9223372036854775807\nb 1\n"), "big.folded", Options{})
	want := "big.folded: sample 1: the samples/count values add up to more than 9223372036854775807"
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
}
