/**
 * Text out of knowledge-base documents (uploaded files and fetched pages): the words a reader
 * sees, without markup, as paragraphs separated by blank lines.
 *
 * - txt, md, csv and html must be UTF-8 (a byte-order mark is dropped); anything else fails
 *   `INVALID_ENCODING` (an HTML `<meta charset>` naming another encoding is not honoured).
 * - md: headings, emphasis, links (`[text](url)` → `text`), list bullets, block quotes, fences and
 *   HTML tags are dropped; images are removed; code text and ordered-list numbers are kept; table
 *   rows become `cell; cell; cell`.
 * - csv: the first row names the columns; each later row becomes one paragraph
 *   `Header: value. Header2: value2.` (empty cells left out).
 * - html: the `<body>` without scripts, styles, navigation, page header and footer, SVG and
 *   images; links keep their text only; table rows become `cell; cell`.
 * - pdf: the text layer of each page (pdf.js through `unpdf`, in-process, no network), pages
 *   separated by a blank line. No OCR: a scanned PDF without a text layer fails `NO_TEXT`.
 *
 * The result is in the canonical form of `Chunking.normalizeText` (`\n` line endings, no trailing
 * spaces, at most one blank line in a row, trimmed), and the same bytes always give the same text.
 */
import { parse } from "csv-parse/sync"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { compile, type FormatCallback, type SelectorDefinition } from "html-to-text"
import { extractText as extractPdfText, getDocumentProxy } from "unpdf"

export type DocumentFormat = "txt" | "md" | "csv" | "html" | "pdf"

export const DOCUMENT_FORMATS: ReadonlyArray<DocumentFormat> = ["txt", "md", "csv", "html", "pdf"]

const FORMAT_BY_EXTENSION: Readonly<Record<string, DocumentFormat>> = {
  txt: "txt",
  text: "txt",
  md: "md",
  markdown: "md",
  csv: "csv",
  html: "html",
  htm: "html",
  pdf: "pdf"
}

const FORMAT_BY_MEDIA_TYPE: Readonly<Record<string, DocumentFormat>> = {
  "text/plain": "txt",
  "text/markdown": "md",
  "text/x-markdown": "md",
  "text/csv": "csv",
  "text/html": "html",
  "application/xhtml+xml": "html",
  "application/pdf": "pdf"
}

/**
 * The format of an uploaded file by its extension, case-insensitively: `.txt` `.text` `.md`
 * `.markdown` `.csv` `.html` `.htm` `.pdf`; `undefined` for anything else (no extension included).
 */
export const formatOfFileName = (fileName: string): DocumentFormat | undefined => {
  const match = /\.([A-Za-z0-9]+)$/.exec(fileName.trim())
  return match === null ? undefined : FORMAT_BY_EXTENSION[match[1].toLowerCase()]
}

/**
 * The format of a fetched resource: by the media type of its `Content-Type` (parameters such as
 * `charset` ignored): `text/plain`, `text/markdown`, `text/csv`, `text/html`,
 * `application/xhtml+xml`, `application/pdf`. When the header is missing or names another type
 * (`application/octet-stream`, say), the extension of the URL's path decides, as for file names;
 * `undefined` when neither does.
 */
export const formatOfContentType = (contentType: string | undefined, url?: string): DocumentFormat | undefined => {
  const mediaType = contentType?.split(";")[0].trim().toLowerCase()
  const byType = mediaType === undefined ? undefined : FORMAT_BY_MEDIA_TYPE[mediaType]
  if (byType !== undefined || url === undefined) return byType
  let pathname: string
  try {
    pathname = new URL(url).pathname
  } catch {
    return undefined
  }
  const segment = pathname.slice(pathname.lastIndexOf("/") + 1)
  try {
    return formatOfFileName(decodeURIComponent(segment))
  } catch {
    return formatOfFileName(segment)
  }
}

/** A document whose text cannot be extracted; `message` is meant for the person who added it. */
export class ExtractionFailed extends Data.TaggedError("ExtractionFailed")<{
  readonly code: "INVALID_ENCODING" | "INVALID_CSV" | "INVALID_PDF" | "NO_TEXT"
  readonly message: string
}> {}

/**
 * The document's plain text: paragraphs separated by blank lines, in `normalizeText`'s canonical
 * form. Fails `NO_TEXT` when nothing but whitespace results, `INVALID_ENCODING` for text formats
 * that are not UTF-8, `INVALID_CSV` with the parser's message, and `INVALID_PDF` for anything
 * pdf.js cannot open (not a PDF, damaged, encrypted). The input bytes are not modified.
 */
export const extractText = (format: DocumentFormat, bytes: Uint8Array): Effect.Effect<string, ExtractionFailed> => {
  const raw: Effect.Effect<string, ExtractionFailed> = format === "pdf"
    ? pdfText(bytes)
    : Effect.flatMap(decodeUtf8(bytes), (text) => {
      switch (format) {
        case "txt":
          return Effect.succeed(text)
        case "md":
          return Effect.succeed(markdownText(text))
        case "csv":
          return csvText(text)
        case "html":
          return Effect.succeed(htmlText(text))
      }
    })
  return Effect.flatMap(raw, (text) => {
    const clean = canonicalText(stripControlCharacters(text))
    return clean === ""
      ? Effect.fail(
        new ExtractionFailed({
          code: "NO_TEXT",
          message: format === "pdf"
            ? "The PDF has no text layer (scanned pages would need OCR, which is not supported)"
            : `The ${format} document contains no text`
        })
      )
      : Effect.succeed(clean)
  })
}

const decodeUtf8 = (bytes: Uint8Array): Effect.Effect<string, ExtractionFailed> =>
  Effect.try({
    // ignoreBOM false (the default) is what drops a leading byte-order mark
    try: () => new TextDecoder("utf-8", { fatal: true }).decode(bytes),
    catch: () => new ExtractionFailed({ code: "INVALID_ENCODING", message: "The document is not valid UTF-8 text" })
  })

/**
 * What `Chunking.normalizeText` gives (`\n` line endings, no trailing whitespace, at most one blank
 * line in a row, trimmed), in linear time: its `[^\S\n]+(?=\n|$)` is quadratic on a long run of
 * spaces inside a line, which an upload can hold.
 */
const canonicalText = (text: string): string =>
  text
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim()

// Form feeds and vertical tabs separate lines; other C0 controls and DEL are dropped.
const stripControlCharacters = (text: string): string =>
  text.replace(/[\f\v]/g, "\n").replace(/[\u0000-\u0008\u000e-\u001f\u007f]/g, "")

// ---------------------------------------------------------------------------------------------
// Markdown
// ---------------------------------------------------------------------------------------------

// Every pattern here runs in linear time on tenant-controlled input (a 10 MiB upload may be a
// single line): scans exclude their own opening character so they cannot overlap, and pairs of
// emphasis markers are matched by a single pass instead of a lazy regular expression.
const FENCE = /^ {0,3}(`{3,}|~{3,})/
const ATX_HEADING = /^ {0,3}#{1,6}(?:[ \t]+|$)/
const SETEXT_OR_RULE = /^ {0,3}(?:=+|-+|(?:[-*_][ \t]*){3,})[ \t]*$/
const LINK_DEFINITION = /^ {0,3}\[[^\]]+\]:[ \t]*\S+.*$/
const BLOCKQUOTE = /^ {0,3}(?:>[ \t]?)+/
const BULLET = /^[-*+][ \t]+(?:\[[ xX]\][ \t]+)?/
const LINK_TARGET = String.raw`\((?:[^()\s]|\([^()\s]*\))*(?:[ \t]+(?:"[^"]*"|'[^']*'))?[ \t]*\)`
const IMAGE = new RegExp(String.raw`!\[[^\[\]]*\](?:${LINK_TARGET}|\[[^\[\]]*\])`, "g")
const LINK = new RegExp(String.raw`\[([^\[\]]*)\](?:${LINK_TARGET}|\[[^\[\]]*\])`, "g")

/** Markdown to plain text, line by line; keeps the words and the paragraph structure. */
const markdownText = (markdown: string): string => {
  const lines = stripHtmlComments(markdown.replace(/\r\n?/g, "\n")).split("\n")
  const out: Array<string> = []
  let fence: string | undefined
  let inTable = false
  lines.forEach((line, i) => {
    const fenceMatch = FENCE.exec(line)
    if (fence !== undefined) {
      if (
        fenceMatch !== null && fenceMatch[1][0] === fence[0] && fenceMatch[1].length >= fence.length &&
        line.trim() === fenceMatch[1]
      ) {
        fence = undefined
      } else {
        out.push(line)
      }
      return
    }
    if (fenceMatch !== null) {
      fence = fenceMatch[1]
      return
    }
    const next = lines[i + 1]
    if (line.includes("|") && (inTable || (next !== undefined && next.includes("|") && isTableDelimiter(next)))) {
      inTable = true
      if (!isTableDelimiter(line)) out.push(tableRow(line))
      return
    }
    inTable = false
    if (line.trim() === "" || SETEXT_OR_RULE.test(line) || LINK_DEFINITION.test(line)) {
      // a rule or a setext underline still separates what is above from what is below
      out.push("")
      return
    }
    const text = line.replace(BLOCKQUOTE, "").trimStart()
    if (ATX_HEADING.test(text)) {
      out.push("", inline(stripClosingHashes(text.replace(ATX_HEADING, ""))), "")
    } else {
      out.push(inline(text.replace(BULLET, "")))
    }
  })
  return out.join("\n")
}

const stripHtmlComments = (text: string): string => {
  let result = ""
  let from = 0
  for (;;) {
    const open = text.indexOf("<!--", from)
    const close = open === -1 ? -1 : text.indexOf("-->", open + 4)
    if (close === -1) return result + text.slice(from)
    result += text.slice(from, open)
    from = close + 3
  }
}

/** `## Title ##` → `Title`: a closing run of `#` counts only after a space. */
const stripClosingHashes = (text: string): string => {
  const trimmed = text.trimEnd()
  let end = trimmed.length
  while (end > 0 && trimmed[end - 1] === "#") end--
  if (end === trimmed.length) return trimmed
  if (end === 0) return ""
  return trimmed[end - 1] === " " || trimmed[end - 1] === "\t" ? trimmed.slice(0, end).trimEnd() : trimmed
}

const splitTableRow = (line: string): Array<string> =>
  line.trim().replace(/^\|/, "").replace(/(?<!\\)\|$/, "").split(/(?<!\\)\|/)

const isTableDelimiter = (line: string): boolean => splitTableRow(line).every((cell) => /^:?-+:?$/.test(cell.trim()))

const tableRow = (line: string): string =>
  splitTableRow(line)
    .map((cell) => inline(cell.trim()))
    .filter((cell) => cell !== "")
    .join("; ")

/**
 * Removes paired emphasis markers (`**bold**`, `_it_`, `~~gone~~`) in one pass: an opener is
 * followed by a non-space and not preceded by a letter or digit, a closer the reverse, so
 * `snake_case`, `2 * 3` and `a*b` are left alone.
 */
const unwrapPairs = (text: string, marker: string): string => {
  const remove: Array<number> = []
  let opener = -1
  let at = text.indexOf(marker)
  while (at !== -1) {
    const before = at === 0 ? "" : text[at - 1]
    const after = text[at + marker.length] ?? ""
    const canClose = before !== "" && !/\s/.test(before) && !/[\p{L}\p{N}]/u.test(after)
    const canOpen = after !== "" && !/\s/.test(after) && !/[\p{L}\p{N}]/u.test(before)
    if (opener !== -1 && canClose) {
      remove.push(opener, at)
      opener = -1
    } else if (canOpen) {
      opener = at
    }
    at = text.indexOf(marker, at + marker.length)
  }
  if (remove.length === 0) return text
  let result = ""
  let from = 0
  for (const index of remove) {
    result += text.slice(from, index)
    from = index + marker.length
  }
  return result + text.slice(from)
}

/** Inline markup: code spans and escapes are protected, then images, links, tags and emphasis go. */
const inline = (text: string): string => {
  const kept: Array<string> = []
  const keep = (value: string) => `\u0000${kept.push(value) - 1}\u0000`
  let result = text
    .replace(/\u0000/g, "")
    .replace(/(`+)([^`]+)\1(?!`)/g, (_, _ticks: string, code: string) => keep(code.trim()))
    .replace(/\\([!-/:-@[-`{-~])/g, (_, c: string) => keep(c))
    .replace(IMAGE, "")
    .replace(LINK, "$1")
    .replace(/<((?:https?|mailto):[^<>\s]+)>/gi, (_, url: string) => keep(url))
    .replace(/<br\s*\/?>/gi, " ")
    .replace(/<\/?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?\/?>/g, "")
  for (const marker of ["**", "__", "~~", "*", "_"]) result = unwrapPairs(result, marker)
  return decodeEntities(result).replace(/\u0000(\d+)\u0000/g, (_, i: string) => kept[Number(i)])
}

const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: "\"",
  apos: "'",
  nbsp: " ",
  ndash: "–",
  mdash: "—",
  hellip: "…",
  copy: "©",
  reg: "®"
}

const decodeEntities = (text: string): string =>
  text.replace(
    /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([A-Za-z]{1,31}));/g,
    (entity, dec?: string, hex?: string, name?: string) => {
      if (name !== undefined) return NAMED_ENTITIES[name] ?? entity
      const code = dec !== undefined ? Number(dec) : parseInt(hex!, 16)
      return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : entity
    }
  )

// ---------------------------------------------------------------------------------------------
// CSV
// ---------------------------------------------------------------------------------------------

const csvText = (text: string): Effect.Effect<string, ExtractionFailed> =>
  Effect.map(
    Effect.try({
      try: (): Array<Array<string>> =>
        parse(text, { bom: true, relax_column_count: true, skip_empty_lines: true, trim: true }),
      catch: (error) =>
        new ExtractionFailed({ code: "INVALID_CSV", message: `The file is not valid CSV: ${(error as Error).message}` })
    }),
    (records) => {
      const [headers = [], ...rows] = records
      const label = (column: number) => {
        const header = oneLine(headers[column] ?? "")
        return header === "" ? `Column ${column + 1}` : header
      }
      return rows
        .map((row) =>
          row
            .map((cell, column) => ({ cell: oneLine(cell), column }))
            .filter(({ cell }) => cell !== "")
            .map(({ cell, column }) => `${label(column)}: ${cell}${/[.!?]$/.test(cell) ? "" : "."}`)
            .join(" ")
        )
        .filter((paragraph) => paragraph !== "")
        .join("\n\n")
    }
  )

// A quoted cell may hold line breaks; a row stays one paragraph.
const oneLine = (value: string): string => value.replace(/\s+/g, " ").trim()

// ---------------------------------------------------------------------------------------------
// HTML
// ---------------------------------------------------------------------------------------------

/** `ul` without bullets, `ol` numbered `1. `, nested lists indented by the builder. */
const plainList: FormatCallback = (elem, walk, builder, formatOptions) => {
  const items = (elem.children ?? []).filter((child) => child.type !== "text" || !/^\s*$/.test(String(child.data)))
  if (items.length === 0) return
  const nested = elem.parent?.name === "li"
  const ordered = elem.name === "ol"
  let index = Number(elem.attribs?.start ?? "1")
  if (!Number.isFinite(index)) index = 1
  const prefixes = items.map((child) => child.name === "li" && ordered ? `${index++}. ` : "")
  builder.openList({
    interRowLineBreaks: 1,
    leadingLineBreaks: nested ? 1 : (formatOptions.leadingLineBreaks ?? 2),
    maxPrefixLength: Math.max(0, ...prefixes.map((p: string) => p.length)),
    prefixAlign: "left"
  })
  items.forEach((child, i) => {
    builder.openListItem({ prefix: prefixes[i] })
    walk([child], builder)
    builder.closeListItem()
  })
  builder.closeList({ trailingLineBreaks: nested ? 1 : (formatOptions.trailingLineBreaks ?? 2) })
}

/** A table row on one line, its cells separated by `; ` (whitespace between cells ignored). */
const tableRowLine: FormatCallback = (elem, walk, builder) => {
  builder.openBlock({ leadingLineBreaks: 1 })
  let first = true
  for (const child of elem.children ?? []) {
    if (child.type !== "tag" || (child.name !== "td" && child.name !== "th")) continue
    if (!first) builder.addLiteral("; ")
    first = false
    walk(child.children ?? [], builder)
  }
  builder.closeBlock({ trailingLineBreaks: 1 })
}

const SKIPPED_ELEMENTS = [
  "head",
  "script",
  "style",
  "noscript",
  "template",
  "iframe",
  "object",
  "canvas",
  "nav",
  "header",
  "footer",
  "svg",
  "img",
  "picture",
  "video",
  "audio",
  "hr"
]

const HTML_SELECTORS: Array<SelectorDefinition> = [
  ...SKIPPED_ELEMENTS.map((selector): SelectorDefinition => ({ selector, format: "skip" })),
  { selector: "a", options: { ignoreHref: true } },
  ...["h1", "h2", "h3", "h4", "h5", "h6"].map((selector): SelectorDefinition => ({
    selector,
    options: { uppercase: false, leadingLineBreaks: 2, trailingLineBreaks: 2 }
  })),
  { selector: "ul", format: "plainList" },
  { selector: "ol", format: "plainList" },
  { selector: "blockquote", format: "block", options: { leadingLineBreaks: 2, trailingLineBreaks: 2 } },
  { selector: "table", format: "block", options: { leadingLineBreaks: 2, trailingLineBreaks: 2 } },
  { selector: "caption", format: "block", options: { leadingLineBreaks: 1, trailingLineBreaks: 1 } },
  { selector: "tr", format: "tableRowLine" }
]

const VOID_ELEMENTS: ReadonlySet<string> = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "param",
  "source",
  "track",
  "wbr"
])
const MAX_HTML_DEPTH = 200
const CLOSE_SEARCH = 8

/**
 * Replaces the tags of elements nested deeper than `MAX_HTML_DEPTH` (and their end tags) with a
 * space, keeping their text. htmlparser2 keeps its open elements with `Array.unshift`, so parsing is
 * quadratic in the nesting depth (400,000 nested `<span>` take about 40 s), and html-to-text walks
 * the tree recursively. The depth counted here is an upper bound of the parser's: every non-void
 * tag counts, and an end tag closes only an element among the last few opened.
 */
const flattenDeepNesting = (html: string): string => {
  const stack: Array<{ readonly name: string; readonly dropped: boolean }> = []
  let depth = 0
  return html.replace(/<(\/?)([A-Za-z][A-Za-z0-9-]*)[^<>]*>/g, (tag, slash: string, rawName: string) => {
    const name = rawName.toLowerCase()
    if (VOID_ELEMENTS.has(name)) return tag
    if (slash === "") {
      const dropped = depth >= MAX_HTML_DEPTH
      stack.push({ name, dropped })
      if (dropped) return " "
      depth++
      return tag
    }
    for (let i = stack.length - 1; i >= Math.max(0, stack.length - CLOSE_SEARCH); i--) {
      if (stack[i].name !== name) continue
      const closing = stack[i]
      for (const entry of stack.splice(i)) if (!entry.dropped) depth--
      return closing.dropped ? " " : tag
    }
    return tag
  })
}

const convertHtml = compile({
  wordwrap: false,
  // a safety net behind flattenDeepNesting: deeper content would be dropped, not overflow the stack
  limits: { maxDepth: 1_000, ellipsis: "" },
  formatters: { plainList, tableRowLine },
  selectors: HTML_SELECTORS
})

const htmlText = (html: string): string => convertHtml(flattenDeepNesting(html))

// ---------------------------------------------------------------------------------------------
// PDF
// ---------------------------------------------------------------------------------------------

const invalidPdf = (error: unknown) =>
  new ExtractionFailed({
    code: "INVALID_PDF",
    message: isPasswordError(error)
      ? "The PDF is encrypted or password-protected"
      : `The file is not a readable PDF: ${error instanceof Error ? error.message : String(error)}`
  })

const isPasswordError = (error: unknown) =>
  typeof error === "object" && error !== null && (error as { name?: unknown }).name === "PasswordException"

/**
 * pdf.js runs in-process (unpdf's serverless build, a fake worker): no worker thread, no canvas,
 * and no network since the document is given as data. It takes ownership of the buffer it is given
 * (the loopback port transfers it, leaving it detached), so it gets a copy.
 */
const pdfText = (bytes: Uint8Array): Effect.Effect<string, ExtractionFailed> =>
  Effect.acquireUseRelease(
    Effect.tryPromise({
      try: () => getDocumentProxy(bytes.slice(), { verbosity: 0 }),
      catch: invalidPdf
    }),
    (pdf) =>
      Effect.tryPromise({
        try: () => extractPdfText(pdf, { mergePages: false }),
        catch: invalidPdf
      }).pipe(Effect.map(({ text }) => text.map((page) => page.trim()).filter((page) => page !== "").join("\n\n"))),
    (pdf) => Effect.promise(() => pdf.loadingTask.destroy().catch(() => undefined))
  )
