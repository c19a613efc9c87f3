/**
 * The lint rule that keeps each package's rooms (top-level folders and root files of `src`) free of
 * cycles (`eslint/rooms.js`, docs/decisions/0034-rooms-without-cycles.md), on two small packages written to a
 * temporary directory: one in layers, one with cycles. The file under lint is the test's code, the others
 * are read from disk.
 */
import { afterAll, describe, it } from "@effect/vitest"
import { type Rule, RuleTester } from "eslint"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import tseslint from "typescript-eslint"

const { noRoomCycles } = (await import(new URL("../../../eslint/rooms.js", import.meta.url).href)) as {
  readonly noRoomCycles: Rule.RuleModule
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), "room-cycles-"))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

/** Writes a package (`package.json` and the given `src` files) under the temporary directory. */
const writePackage = (name: string, files: Record<string, string>) => {
  const dir = path.join(root, name)
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name, type: "module" }))
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, "src", file)), { recursive: true })
    fs.writeFileSync(path.join(dir, "src", file), text)
  }
  return {
    /** The file's path and its text on disk, as a RuleTester case. */
    file: (file: string, code = files[file] ?? "") => ({ filename: path.join(dir, "src", file), code }),
    src: path.relative(process.cwd(), path.join(dir, "src"))
  }
}

// Ground, repositories, calls, runtime on top: every import goes down.
const layered = writePackage("layered", {
  "Sql/Db.ts": `export const db = 1\n`,
  "Sql/Rows.ts": `import { db } from "./Db.js"\nexport const rows = db\n`,
  "Repos/Users.ts": `import { rows } from "../Sql/Rows.js"\nexport const users = rows\n`,
  "Calls/Timer.ts": `export const timer = 1\n`,
  "Calls/Live.ts": `import { users } from "../Repos/Users.js"\nimport { timer } from "./Timer.js"\n` +
    `export const live = users + timer\n`,
  "Runtime.ts": `import { live } from "./Calls/Live.js"\nimport { db } from "./Sql/Db.js"\n` +
    `import * as Effect from "effect/Effect"\nexport const runtime = [live, db, Effect]\n`
})

// Calls and Campaigns each below the other; Voice and Recordings likewise.
const knotted = writePackage("knotted", {
  "Calls/Sessions.ts": `export const sessions = 1\n`,
  "Calls/Journal.ts": `import { repo } from "../Campaigns/Repo.js"\nimport { sessions } from "./Sessions.js"\n` +
    `export const journal = repo + sessions\n`,
  "Campaigns/Repo.ts": `import { sessions } from "../Calls/Sessions.js"\nexport const repo = sessions\n`,
  "Voice/Audio.ts": `export const audio = 1\n`,
  "Voice/Conversation.ts": `import { recording } from "../Recordings/Recording.js"\nexport const talk = recording\n`,
  "Recordings/Recording.ts": `import { audio } from "../Voice/Audio.js"\nexport const recording = audio\n`
})

const loose = path.join(root, "loose")
fs.mkdirSync(loose)

RuleTester.describe = describe
RuleTester.it = it
RuleTester.itOnly = it.only

const tester = new RuleTester({
  languageOptions: { parser: tseslint.parser, ecmaVersion: 2022, sourceType: "module" }
})

const cycle = (src: string, from: string, to: string, ...rest: Array<string>) => ({
  messageId: "cycle",
  data: { from, to, cycle: [from, to, ...rest].join(" → "), src }
})

tester.run("no-room-cycles", noRoomCycles, {
  valid: [
    // a package in layers: every file as it is
    layered.file("Runtime.ts"),
    layered.file("Calls/Live.ts"),
    layered.file("Repos/Users.ts"),
    // in a package with cycles, an import inside a room runs nowhere
    knotted.file("Calls/Journal.ts", `import { sessions } from "./Sessions.js"\nexport const journal = sessions\n`),
    // the file as the editor holds it counts, not as it is on disk: without its import back, no cycle is left
    knotted.file("Campaigns/Repo.ts", `export const repo = 1\n`),
    knotted.file("Voice/Conversation.ts", `export const talk = 1\n`),
    // what leaves src, and other packages, are not rooms
    layered.file(
      "Sql/Db.ts",
      `import pkg from "../../package.json"\nimport * as Effect from "effect/Effect"\n` +
        `export const db = [pkg, Effect]\n`
    ),
    // a file in no package's src
    { filename: path.join(loose, "a.ts"), code: `import { b } from "../b.js"\nexport const a = b\n` }
  ],
  invalid: [
    {
      ...knotted.file("Campaigns/Repo.ts"),
      errors: [cycle(knotted.src, "Campaigns", "Calls", "Campaigns")]
    },
    {
      // only the import that leaves the room is on the cycle
      ...knotted.file("Calls/Journal.ts"),
      errors: [{ ...cycle(knotted.src, "Calls", "Campaigns", "Calls"), line: 1 }]
    },
    {
      // every form of import counts: export … from, import type, import(), and import types
      ...knotted.file(
        "Voice/Conversation.ts",
        `export * from "../Recordings/Recording.js"\n` +
          `import type { recording } from "../Recordings/Recording.js"\n` +
          `export const later = () => import("../Recordings/Recording.js")\n` +
          `export type R = typeof import("../Recordings/Recording.js").recording | typeof recording\n`
      ),
      errors: [1, 2, 3, 4].map((line) => ({ ...cycle(knotted.src, "Voice", "Recordings", "Voice"), line }))
    },
    {
      // a package in layers: one import from the ground up to the calls closes a cycle through three rooms
      ...layered.file("Sql/Db.ts", `import { live } from "../Calls/Live.js"\nexport const db = live\n`),
      errors: [cycle(layered.src, "Sql", "Calls", "Repos", "Sql")]
    }
  ]
})
