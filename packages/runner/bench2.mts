import { extractText } from "./src/Knowledge/Extract.ts"
import { normalizeText } from "@voiceagent/domain/Chunking"
import { Effect } from "effect"
const enc = (s: string) => new TextEncoder().encode(s)
let t = Date.now(); normalizeText(" ".repeat(100000) + "x"); console.log("normalizeText 100k spaces", Date.now() - t, "ms")
const html: Record<string, string> = {
  nested: "<div>".repeat(100000) + "x",
  ws: "<p>" + " ".repeat(1000000) + "x</p>",
  attrs: "<a " + "b=".repeat(100000),
  lt: "<".repeat(1000000),
}
for (const [k, v] of Object.entries(html)) {
  t = Date.now(); const r = await Effect.runPromiseExit(extractText("html", enc(v))); console.log(k, Date.now() - t, "ms", r._tag, r._tag === "Failure" ? String(r.cause).slice(0, 200) : "")
}
