package convert

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/ctdiff/ctdiff/internal/pprofio"
	"github.com/ctdiff/ctdiff/stacks"
	"github.com/google/pprof/profile"
)

// An inputFormat is one input format: a name for --from, a sniffer and a parser.
type inputFormat struct {
	// Name is the --from name, lower case ("pprof", "collapsed", "devtools").
	Name string
	// Description is a one-line description for help text.
	Description string
	// Priority orders sniffing: higher runs first. Specific, cheap sniffers
	// (magic bytes, JSON keys) get high values; permissive text formats low.
	Priority int
	// Sniff reports whether head, the first SniffSize bytes of the
	// decompressed input (fewer if the input is shorter), looks like this
	// format. It must not panic on any input.
	Sniff func(head []byte) bool
	// Parse reads the whole input and returns a valid profile.
	Parse func(in *parserInput) (*profile.Profile, error)
	// ParseStacks, when set, is Parse for Options.Stacks: it may return
	// the samples as stacks.Samples of the profile it returns (made by
	// stacks.New or profileBuilder.CollectStacks) instead of in the profile (nil
	// when it returns them in the profile after all).
	ParseStacks func(in *parserInput) (*profile.Profile, *stacks.Samples, error)
	// CompleteStacks says ParseStacks's samples hold all that Parse's
	// would: no labels but thread, process, pid, tid and timestamp_ns,
	// as profileBuilder.Add writes them (and pprofio.WriteSource does).
	CompleteStacks bool
}

// sniffSize is how many leading bytes a sniffer sees.
const sniffSize = 8 << 10

var registry = map[string]*inputFormat{}

// register adds a format. It is called from init functions in this package;
// registering a name twice panics (a programming error, not an input error).
func register(f inputFormat) {
	if f.Name == "" || f.Parse == nil {
		panic("convert: register needs a name and a parser")
	}
	if _, dup := registry[f.Name]; dup {
		panic("convert: format registered twice: " + f.Name)
	}
	registry[f.Name] = &f
}

// sniffOrder returns the registered formats in sniffing order.
func sniffOrder() []inputFormat {
	out := make([]inputFormat, 0, len(registry))
	for _, f := range registry {
		out = append(out, *f)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Priority != out[j].Priority {
			return out[i].Priority > out[j].Priority
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// FormatNames returns the --from names, sorted.
func FormatNames() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func lookup(name string) (*inputFormat, error) {
	if f, ok := registry[strings.ToLower(name)]; ok {
		return f, nil
	}
	return nil, fmt.Errorf("unknown format %q: must be one of: %s", name, strings.Join(FormatNames(), ", "))
}

// A parserInput is what a parser reads: the decompressed bytes as a buffered
// reader, the input's name for messages, the options and a place to put
// warnings.
type parserInput struct {
	// Name is the file name or "-" for standard input, used in messages.
	Name string
	// R reads the decompressed input from its first byte.
	R *bufio.Reader
	// Options are the caller's options (never nil).
	Options *Options

	warnings []string
	consumed *int64 // decompressed bytes read so far; nil when unknown
	sizeHint int    // the likely decompressed size, for ReadAll; 0 when unknown
	// whole, when not nil, is the gzipped file R decompresses, for the
	// pprof reader to read whole (pprofio.WholeGzip).
	whole *pprofio.WholeGzip
	// samples, when ParseStacks returns no stacks.Samples, may be its
	// samples in another form (v8Stream).
	samples stacks.Source
	// collect says Parse was called as ParseStacks (parseCollecting): a
	// reader that builds with a profileBuilder may collect its samples as
	// stacks.Samples, and put them in samples.
	collect bool
	// builder is the profileBuilder collectStacks collects in.
	builder *profileBuilder
}

// parseCollecting makes a ParseStacks of a Parse whose reader collects
// its samples compactly when in.collect says it may (collectStacks).
func parseCollecting(parse func(in *parserInput) (*profile.Profile, error)) func(in *parserInput) (*profile.Profile, *stacks.Samples, error) {
	return func(in *parserInput) (*profile.Profile, *stacks.Samples, error) {
		in.collect = true
		p, err := parse(in)
		if err != nil {
			return nil, nil, err
		}
		if in.builder != nil {
			in.builder.Stacks() // with the frames made since collectStacks
		}
		s, _ := in.samples.(*stacks.Samples)
		return p, s, nil
	}
}

// collectStacks has b collect its samples as stacks.Samples, for in's
// samples, when the caller takes them so (parseCollecting): 40 bytes a
// timestamped sample and 4 a frame instead of about 550.
func (in *parserInput) collectStacks(b *profileBuilder) {
	if in.collect {
		b.CollectStacks()
		in.samples = b.Stacks()
		in.builder = b
	}
}

// collectFrames is collectStacks for readers that name locations by
// index (profileBuilder.loc, addIdx): where the caller only builds trees
// (Options.CompleteStacks is not set), their locations are compact frames
// too (profileBuilder.useFrames).
func (in *parserInput) collectFrames(b *profileBuilder) {
	in.collectStacks(b)
	in.useFrames(b)
}

// useFrames has b, which collects stacks, keep compact frames when the
// caller only builds trees from them.
func (in *parserInput) useFrames(b *profileBuilder) {
	if b.stacks != nil && !in.Options.CompleteStacks {
		b.useFrames()
	}
}

// bytesRead returns how many decompressed bytes were read from the input
// so far (including what R buffered ahead), 0 when unknown.
func (in *parserInput) bytesRead() int64 {
	if in.consumed == nil {
		return 0
	}
	return *in.consumed
}

// Warnf records a warning about the input (skipped records, assumptions
// made). Warnings reach the user on stderr; they never replace an error.
func (in *parserInput) Warnf(format string, args ...any) {
	in.warnings = append(in.warnings, fmt.Sprintf(format, args...))
}

// ReadAll reads the rest of the input. Parsers of formats that cannot be
// streamed (binary protobuf, zip) use it; the size is already bounded by
// Options.MaxDecompressed.
func (in *parserInput) ReadAll() ([]byte, error) {
	if in.sizeHint <= 0 {
		return io.ReadAll(in.R)
	}
	// io.ReadAll, from a buffer of the likely size: growing one by
	// doubling copies and discards as much again.
	b := make([]byte, 0, in.sizeHint+bytes.MinRead)
	for {
		n, err := in.R.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}
