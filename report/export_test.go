package report

// Internal helpers the external tests use.
var (
	RenderDOT = renderDOT
	ShortFunc = shortFunc
	MdCode    = mdCode
	MdText    = mdText
	// ReadDiffJSONLimit is ReadDiffJSON with a size limit, which tests
	// lower.
	ReadDiffJSONLimit = readDiffJSON
)
