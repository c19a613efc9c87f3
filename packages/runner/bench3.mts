import { extractText } from "./src/Knowledge/Extract.ts"
import { Effect } from "effect"
const enc = (s: string) => new TextEncoder().encode(s)
for (const [k, v] of Object.entries({ nested: "<div>".repeat(100000) + "x", nestedSpan: "<p>a</p>" + "<span>".repeat(200000) + "x", deep200: "<div>".repeat(200) + "deep text" , table: "<table>" + "<tr><td>a</td><td>b</td></tr>".repeat(100000) + "</table>", big: "<p>hello world</p>".repeat(500000)})) {
  const t = Date.now(); const r = await Effect.runPromiseExit(extractText("html", enc(v))); console.log(k, Date.now() - t, "ms", r._tag, r._tag === "Failure" ? String(r.cause).slice(0, 200) : JSON.stringify(r.value.slice(0, 40)))
}
