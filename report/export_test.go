package report

// Internal helpers the external tests use.
var (
	RenderDOT = renderDOT
	ShortFunc = shortFunc
	MdCode    = mdCode
	MdText    = mdText
)

// SetDiffJSONLimit lowers ReadDiffJSON's size limit for a test; the
// returned function restores it.
func SetDiffJSONLimit(n int) (restore func()) {
	old := diffJSONLimit
	diffJSONLimit = n
	return func() { diffJSONLimit = old }
}
