import { extractText } from "./src/Knowledge/Extract.ts"
import { Effect } from "effect"
const enc = (s: string) => new TextEncoder().encode(s)
const cases: Record<string, string> = {
  stars: "**a ".repeat(30000),
  brackets: "[".repeat(100000),
  links: "[a](".repeat(30000),
  tags: "<a ".repeat(30000),
  tilde: "~~a ".repeat(30000),
  unders: " __a".repeat(30000),
  heading: "# a" + " ".repeat(100000) + "x",
  hashes: "# a " + "#".repeat(100000) + "x",
  tablews: "a|b\n" + " ".repeat(100000) + "x",
  ents: "&" + "a".repeat(100000),
  ticks: "`a ".repeat(30000),
}
for (const [k, v] of Object.entries(cases)) {
  const t = Date.now(); await Effect.runPromise(Effect.either(extractText("md", enc(v)))); console.log(k, Date.now() - t, "ms")
}
