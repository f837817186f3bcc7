package engram

// EncodeVector is encodeVector, for the external tests' baselines, which
// write vec0 rows in engram's format.
var EncodeVector = encodeVector
