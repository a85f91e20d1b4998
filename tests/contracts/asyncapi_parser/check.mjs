// Parse an AsyncAPI document with the AsyncAPI Initiative's parser and print its diagnostics
// as JSON lines; exit 1 if any has error severity (0), 2 if the file cannot be read.
// Usage: node check.mjs FILE
import { Parser, fromFile } from "@asyncapi/parser";

const file = process.argv[2];
if (!file) {
  console.error("usage: node check.mjs FILE");
  process.exit(2);
}
const parser = new Parser();
const { document, diagnostics } = await fromFile(parser, file).parse();
for (const d of diagnostics) {
  console.log(JSON.stringify({ severity: d.severity, code: d.code, message: d.message, path: d.path }));
}
const errors = diagnostics.filter((d) => d.severity === 0);
if (!document || errors.length > 0) {
  console.error(`${file}: ${errors.length} error(s)`);
  process.exit(1);
}
console.log(JSON.stringify({ ok: true, version: document.version(), channels: document.channels().all().map((c) => c.id()) }));
