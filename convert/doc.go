// Package convert is the first stage of ctdiff's pipeline: it turns the bytes
// of a profile in any supported format into a *profile.Profile (pprof).
//
// Each input format lives in its own file and registers an inputFormat with a
// content sniffer and a parser. Read and ReadFile undo gzip compression
// (detected by magic bytes, whatever the file name), pick the format by
// sniffing unless Options.From forces one, apply thread/pid selection and
// return the profile together with any warnings about skipped data.
//
// Conventions every converter follows (docs/formats.md, "The interchange"):
//   - per-sample timestamps travel as the numeric label labels.Timestamp (ns),
//     thread identity as labels.Thread, labels.Process, labels.PID, labels.TID;
//   - samples of one thread are written in time order;
//   - frame identity is Function.Name and Function.Filename, with Line.Line
//     the line (the call site, for non-leaf frames) and Line.Column the column;
//     Function.StartLine, where the source says where a function is defined
//     (V8 call frames), separates same-named functions of one file;
//   - the sum of weights in equals the sum of weights out; whatever a converter
//     has to skip is counted in a warning.
//
// ParseBench reads the other input a comparison may take from disk: the
// go test -bench output of the runs whose Go CPU profiles are compared.
//
// convert is the lowest stage: it must not import cct, diff, report or cmd.
package convert
