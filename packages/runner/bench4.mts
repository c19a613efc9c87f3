import { parseDocument } from "htmlparser2"
import { extractText } from "./src/Knowledge/Extract.ts"
import { Effect } from "effect"
for (const n of [100000, 200000, 400000]) {
  const v = "<span>".repeat(n) + "x"
  let t = Date.now(); parseDocument(v); const p = Date.now() - t
  t = Date.now(); await Effect.runPromiseExit(extractText("html", new TextEncoder().encode(v))); console.log(n, "parse", p, "ms; extract", Date.now() - t, "ms")
}
