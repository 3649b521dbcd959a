// Parse an AsyncAPI document with the AsyncAPI Initiative's parser (@asyncapi/parser):
// its JSON Schema of the specification (@asyncapi/specs), the schemas of its messages in
// their format, its references, and its ruleset (Spectral). Prints every diagnostic as a
// JSON line; exits 1 when the document does not parse or any diagnostic is an error.
//   node validate.mjs <document.json>
import { readFile } from "node:fs/promises";
import { Parser, DiagnosticSeverity } from "@asyncapi/parser";

const path = process.argv[2];
const { document, diagnostics } = await new Parser().parse(await readFile(path, "utf8"), {
  source: path,
});
for (const d of diagnostics) {
  console.log(JSON.stringify({
    severity: DiagnosticSeverity[d.severity], code: d.code, message: d.message,
    path: d.path.join("/"),
  }));
}
const errors = diagnostics.filter((d) => d.severity === DiagnosticSeverity.Error);
process.exit(document === undefined || errors.length > 0 ? 1 : 0);
