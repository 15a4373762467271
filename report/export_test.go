package report

// Internal helpers the external tests use.
var (
	RenderDOT = renderDOT
	ShortFunc = shortFunc
	MdCode    = mdCode
	MdText    = mdText
)
