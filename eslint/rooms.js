/**
 * `voiceagent/no-room-cycles`: inside a package's `src`, the rooms import one another in one direction.
 *
 * A room is a top-level folder of `src` (`Calls/`, `Voice/`) or a file at its root (`Runtime.ts`). The
 * relative imports between rooms make a graph; an import whose edge lies on a cycle of that graph "runs
 * back up" (two rooms each below the other), and this rule reports it, naming the cycle. Imports inside a
 * room, of other packages and of anything outside `src` are not its business.
 *
 * The graph of a package is read once per process from its files' import specifiers on disk
 * (`ts.preProcessFile`: comments are skipped, `import type`, `export … from` and `import()` count), and the
 * file being linted is taken from what ESLint reads (an editor's buffer); an editor's long-running ESLint
 * sees other files' changes when it restarts. Why: docs/decisions/0034-rooms-without-cycles.md.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import ts from "typescript"

const SOURCE = /\.(d\.)?[cm]?[jt]sx?$/

/** The `src` directory of the package `file` belongs to (the nearest `src` beside a `package.json`), if any. */
const srcOf = (file) => {
  for (let dir = path.dirname(file); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (path.basename(dir) === "src" && fs.existsSync(path.join(path.dirname(dir), "package.json"))) return dir
  }
  return undefined
}

/** The room of `file` in `src`: its top-level folder, or its own name without extension at the root. */
const roomOf = (src, file) => {
  const relative = path.relative(src, file)
  if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative)) return undefined
  const parts = relative.split(path.sep)
  return parts.length > 1 ? parts[0] : parts[0].replace(SOURCE, "")
}

/** The room a relative `specifier` in `file` reaches, or undefined when it leaves `src` (or is not relative). */
const targetRoom = (src, file, specifier) =>
  specifier.startsWith(".") ? roomOf(src, path.resolve(path.dirname(file), specifier)) : undefined

const sourceFiles = (dir) =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sourceFiles(full)
    return SOURCE.test(entry.name) ? [full] : []
  })

/** Per package `src`: each file's room and the rooms its relative imports reach (read once). */
const packages = new Map()

const scan = (src) => {
  let files = packages.get(src)
  if (files === undefined) {
    files = new Map()
    for (const file of sourceFiles(src)) {
      const specifiers = ts.preProcessFile(fs.readFileSync(file, "utf8"), true, true).importedFiles
      const targets = new Set(specifiers.map((s) => targetRoom(src, file, s.fileName)).filter((r) => r !== undefined))
      files.set(file, { room: roomOf(src, file), targets })
    }
    packages.set(src, files)
  }
  return files
}

/** The strongly connected components of `edges` (room → set of rooms), as a map room → component number. */
const components = (edges) => {
  const index = new Map()
  const low = new Map()
  const stack = []
  const onStack = new Set()
  const component = new Map()
  let next = 0
  let count = 0
  const visit = (room) => {
    index.set(room, next)
    low.set(room, next)
    next++
    stack.push(room)
    onStack.add(room)
    for (const to of edges.get(room) ?? []) {
      if (!index.has(to)) {
        visit(to)
        low.set(room, Math.min(low.get(room), low.get(to)))
      } else if (onStack.has(to)) low.set(room, Math.min(low.get(room), index.get(to)))
    }
    if (low.get(room) === index.get(room)) {
      let member
      do {
        member = stack.pop()
        onStack.delete(member)
        component.set(member, count)
      } while (member !== room)
      count++
    }
  }
  for (const room of edges.keys()) if (!index.has(room)) visit(room)
  return component
}

/** The shortest way from `from` back to `to` within one component: the rest of the cycle an edge `to → from` closes. */
const wayBack = (edges, component, from, to) => {
  const previous = new Map([[from, undefined]])
  const queue = [from]
  while (queue.length > 0) {
    const room = queue.shift()
    if (room === to) break
    for (const next of edges.get(room) ?? []) {
      if (!previous.has(next) && component.get(next) === component.get(from)) {
        previous.set(next, room)
        queue.push(next)
      }
    }
  }
  const way = []
  for (let room = to; room !== undefined; room = previous.get(room)) way.unshift(room)
  return way
}

/** @type {import("eslint").Rule.RuleModule} */
export const noRoomCycles = {
  meta: {
    type: "problem",
    docs: {
      description: "Between the rooms of a package's src (top-level folders and root files), imports go one way"
    },
    schema: [],
    messages: {
      cycle: "{{from}} → {{to}} runs back up: {{cycle}} is a cycle among the rooms of {{src}}. Move what they share " +
        "into a lower room (docs/decisions/0034-rooms-without-cycles.md)."
    }
  },
  create(context) {
    const file = path.resolve(context.filename)
    const src = srcOf(file)
    const room = src === undefined ? undefined : roomOf(src, file)
    if (room === undefined) return {}
    const imports = []
    const collect = (node) => {
      if (node?.type === "Literal" && typeof node.value === "string") imports.push(node)
    }
    return {
      ImportDeclaration: (node) => collect(node.source),
      ExportNamedDeclaration: (node) => collect(node.source),
      ExportAllDeclaration: (node) => collect(node.source),
      ImportExpression: (node) => collect(node.source),
      TSImportType: (node) => collect(node.source ?? node.argument?.literal),
      "Program:exit": () => {
        const edges = new Map()
        const add = (from, to) => {
          if (from === to) return
          if (!edges.has(from)) edges.set(from, new Set())
          edges.get(from).add(to)
        }
        for (const [other, { room: from, targets }] of scan(src)) {
          if (other === file) continue
          for (const to of targets) add(from, to)
        }
        const own = imports.map((node) => ({ node, to: targetRoom(src, file, node.value) }))
        for (const { to } of own) if (to !== undefined) add(room, to)
        const component = components(edges)
        for (const { node, to } of own) {
          if (to === undefined || to === room || component.get(to) !== component.get(room)) continue
          const cycle = [room, ...wayBack(edges, component, to, room)]
          context.report({
            node,
            messageId: "cycle",
            data: { from: room, to, cycle: cycle.join(" → "), src: path.relative(context.cwd, src) || src }
          })
        }
      }
    }
  }
}

export default { meta: { name: "voiceagent" }, rules: { "no-room-cycles": noRoomCycles } }
