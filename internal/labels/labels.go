// Package labels names the pprof sample labels that carry time and thread
// identity through ctdiff's interchange format (docs/formats.md, "The interchange").
//
// Every converter writes them and the cct stage reads them; keeping the names
// in one leaf package lets both agree without convert importing cct.
package labels

const (
	// Thread is a string label with the thread's name ("CrRendererMain",
	// "main", "DedicatedWorker thread"). Threads are matched across runs by
	// this name and their ordinal among same-named threads, never by tid.
	Thread = "thread"
	// Process is a string label with the process name, when the source has one.
	Process = "process"
	// PID and TID are numeric labels with the operating-system ids. They
	// separate threads within one run; they never identify a thread across runs.
	PID = "pid"
	TID = "tid"
	// Timestamp is a numeric label, unit "nanoseconds", with the sample's time
	// since the start of the recording (or since an epoch where the source
	// uses one). Samples of one thread are written in increasing timestamp order.
	Timestamp = "timestamp_ns"
	// TimestampUnit is the NumUnit written with Timestamp.
	TimestampUnit = "nanoseconds"
	// State is a string label with the thread state of a wall-clock sample
	// (e.g. "STATE_RUNNABLE"), when the source has one.
	State = "thread_state"
)
