package sourcereport

// The source path's JSON documents (docs/json.md); cmd/echoctl/jsonout.go names the others.
const (
	SchemaRewrite = "echo.rewrite/2"
	SchemaScan    = "echo.scan/1"
)
