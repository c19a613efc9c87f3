import { assert, describe, it } from "@effect/vitest"
import { normalizeText } from "@voiceagent/domain/Chunking"
import {
  DOCUMENT_FORMATS,
  type DocumentFormat,
  ExtractionFailed,
  extractText,
  formatOfContentType,
  formatOfFileName
} from "@voiceagent/runner/Knowledge/Extract"
import { minimalPdf } from "@voiceagent/runner/Testing/MinimalPdf"
import { Effect } from "effect"
import * as fs from "node:fs"

const fixture = (name: string): Uint8Array => fs.readFileSync(new URL(`./fixtures/kb-docs/${name}`, import.meta.url))
const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text)

const failure = (format: DocumentFormat, bytes: Uint8Array) =>
  Effect.flip(extractText(format, bytes)).pipe(
    Effect.tap((error) => assert.instanceOf(error, ExtractionFailed))
  )

describe("Knowledge/Extract", () => {
  describe("formats", () => {
    it("lists the five formats", () => {
      assert.deepStrictEqual(DOCUMENT_FORMATS, ["txt", "md", "csv", "html", "pdf"])
    })

    it("knows a file's format by its extension, case-insensitively", () => {
      const cases: Array<[string, DocumentFormat | undefined]> = [
        ["notes.txt", "txt"],
        ["NOTES.TEXT", "txt"],
        ["faq.md", "md"],
        ["Guide.Markdown", "md"],
        ["prices.CSV", "csv"],
        ["page.html", "html"],
        ["page.HTM", "html"],
        ["brochure.final.pdf", "pdf"],
        ["report.docx", undefined],
        ["archive.pdf.zip", undefined],
        ["README", undefined],
        ["pdf", undefined],
        [".md", "md"],
        ["", undefined]
      ]
      for (const [name, format] of cases) assert.strictEqual(formatOfFileName(name), format, name)
    })

    it("knows a fetched resource's format by its content type, then by the URL's extension", () => {
      const cases: Array<[string | undefined, string | undefined, DocumentFormat | undefined]> = [
        ["text/html; charset=utf-8", undefined, "html"],
        ["TEXT/HTML", "https://a.example/file.pdf", "html"],
        ["application/xhtml+xml", undefined, "html"],
        ["text/plain", undefined, "txt"],
        ["text/markdown; charset=UTF-8", undefined, "md"],
        ["text/csv", undefined, "csv"],
        ["application/pdf", "https://a.example/download?id=3", "pdf"],
        ["application/octet-stream", "https://a.example/docs/Guide.PDF?v=2#page=3", "pdf"],
        [undefined, "https://a.example/raw/faq.md", "md"],
        [undefined, "https://a.example/my%20notes.txt", "txt"],
        ["image/png", "https://a.example/logo.png", undefined],
        ["application/json", "https://a.example/api/data", undefined],
        [undefined, undefined, undefined],
        [undefined, "not a url", undefined]
      ]
      for (const [contentType, url, format] of cases) {
        assert.strictEqual(formatOfContentType(contentType, url), format, `${contentType} ${url}`)
      }
    })
  })

  describe("txt", () => {
    it.effect("keeps the text, normalises line endings, trailing spaces and blank lines, drops a BOM", () =>
      Effect.gen(function*() {
        const text = yield* extractText(
          "txt",
          utf8("\uFEFF  Opening hours  \r\n\r\n\r\n\r\nMonday to Friday: 9–17 \r\nSaturday: 10–14\t\n\n")
        )
        assert.strictEqual(text, "Opening hours\n\nMonday to Friday: 9–17\nSaturday: 10–14")
      }))

    it.effect("fails INVALID_ENCODING on bytes that are not UTF-8", () =>
      Effect.gen(function*() {
        // "café" in Latin-1: 0xE9 alone is not UTF-8
        const error = yield* failure("txt", Uint8Array.from([0x63, 0x61, 0x66, 0xe9, 0x0a]))
        assert.strictEqual(error.code, "INVALID_ENCODING")
        assert.strictEqual((yield* failure("md", Uint8Array.from([0x23, 0x20, 0xc3, 0x28]))).code, "INVALID_ENCODING")
        assert.strictEqual((yield* failure("html", Uint8Array.from([0x3c, 0x70, 0x3e, 0xff]))).code, "INVALID_ENCODING")
        assert.strictEqual((yield* failure("csv", Uint8Array.from([0x61, 0x0a, 0xf0, 0x9f]))).code, "INVALID_ENCODING")
      }))

    it.effect("fails NO_TEXT on whitespace only", () =>
      Effect.gen(function*() {
        assert.strictEqual((yield* failure("txt", utf8(" \r\n\t\n \u000c"))).code, "NO_TEXT")
        assert.strictEqual((yield* failure("txt", new Uint8Array(0))).code, "NO_TEXT")
      }))
  })

  describe("md", () => {
    it.effect("keeps the words of a FAQ and drops the markup", () =>
      Effect.gen(function*() {
        const text = yield* extractText("md", fixture("faq.md"))
        assert.strictEqual(
          text,
          [
            "Northwind Mobile FAQ",
            "",
            "Answers to the most common questions. See our plans",
            "for prices.",
            "",
            "How do I top up my prepaid SIM?",
            "",
            "Dial *123# and follow the prompts.",
            "Use the Northwind app, under Balance.",
            "Buy a voucher in any partner shop.",
            "",
            "Does roaming cost extra?",
            "",
            "Roaming in the EU is included. Elsewhere:",
            "",
            "1. Turn on data roaming in your phone's settings.",
            "2. Buy a travel pass before you leave.",
            "",
            "Tip: passes start when you first use data abroad.",
            "",
            "Zone; Price per day; Data",
            "Americas; $5; 1 GB",
            "Asia | Pacific; $7; 1 GB",
            "",
            "How do I check my usage?",
            "",
            "Text USAGE to 2020",
            "",
            "Still stuck?Call us on 0800 123 456."
          ].join("\n")
        )
      }))

    it.effect("keeps code and snake_case words, drops setext underlines, rules, comments and escapes", () =>
      Effect.gen(function*() {
        const text = yield* extractText(
          "md",
          utf8(
            "Settings\n========\n\nSet `max_retries` to 3; see snake_case_name and 2 * 3 * 4.\n\n***\n\n" +
              "<!-- internal\nnote -->\nPrices in \\*USD\\* &amp; taxes included. ~~Old~~ New.\n\n" +
              "~~~\nfenced with tildes\n  indented\n~~~\n"
          )
        )
        assert.strictEqual(
          text,
          "Settings\n\nSet max_retries to 3; see snake_case_name and 2 * 3 * 4.\n\n" +
            "Prices in *USD* & taxes included. Old New.\n\nfenced with tildes\n  indented"
        )
      }))
  })

  describe("csv", () => {
    it.effect("turns each row of a price table into a paragraph of `Header: value.`", () =>
      Effect.gen(function*() {
        const text = yield* extractText("csv", fixture("prices.csv"))
        assert.strictEqual(
          text,
          [
            "Zone: Americas. Price per day: $5. Data: 1 GB.",
            "",
            "Zone: Asia Pacific. Price per day: $7. Data: 1 GB. Notes: Includes Japan, Korea and Australia.",
            "",
            "Zone: Europe. Price per day: $0. Data: Included. Notes: Roaming like at home!"
          ].join("\n")
        )
      }))

    it.effect("labels cells beyond the header or under an empty header by their column", () =>
      Effect.gen(function*() {
        const text = yield* extractText("csv", utf8("Name,,Phone\nAda,Engineer,+44 20\nBob\nCy,,+1 555,extra\n"))
        assert.strictEqual(
          text,
          "Name: Ada. Column 2: Engineer. Phone: +44 20.\n\nName: Bob.\n\nName: Cy. Phone: +1 555. Column 4: extra."
        )
      }))

    it.effect("fails NO_TEXT on a header-only file and INVALID_CSV with the parser's message", () =>
      Effect.gen(function*() {
        assert.strictEqual((yield* failure("csv", utf8("Plan,Price\r\n"))).code, "NO_TEXT")
        assert.strictEqual((yield* failure("csv", utf8("Plan,Price\n,\n\n"))).code, "NO_TEXT")
        const invalid = yield* failure("csv", utf8("Plan,Price\nBasic,\"$10\n"))
        assert.strictEqual(invalid.code, "INVALID_CSV")
        assert.match(invalid.message, /Quote Not Closed/i)
      }))
  })

  describe("html", () => {
    it.effect("keeps the page's content, not its scripts, styles, navigation, header or footer", () =>
      Effect.gen(function*() {
        const text = yield* extractText("html", fixture("plans.html"))
        assert.strictEqual(
          text,
          [
            "Our plans & prices",
            "",
            "Every plan includes unlimited calls and texts. Read the fair use policy.",
            "",
            "Compare plans",
            "",
            "Plan; Monthly price; Data",
            "Basic; $10; 5 GB",
            "Pro; $30; Unlimited",
            "",
            "Good to know",
            "",
            "No contract: cancel any time.",
            "Keep your number when you switch."
          ].join("\n")
        )
        for (
          const leak of [
            "SECRET",
            "INJECTED",
            "font-family",
            "Sign in",
            "Help centre",
            "Privacy",
            "SVG",
            "Promo",
            "https://",
            "JavaScript"
          ]
        ) {
          assert.notInclude(text, leak)
        }
      }))

    it.effect("handles a fragment without <body>, ordered lists, quotes and preformatted text", () =>
      Effect.gen(function*() {
        const text = yield* extractText(
          "html",
          utf8(
            "<h3>Steps</h3><ol start=\"2\"><li>Open <em>Settings</em></li><li>Tap <a " +
              "href=\"#x\">Network</a></li></ol><blockquote><p>Quoted advice.</p></blockquote><pre>line  one\n  line " +
              "two</pre><p>A<br>B</p>"
          )
        )
        assert.strictEqual(
          text,
          "Steps\n\n2. Open Settings\n3. Tap Network\n\nQuoted advice.\n\nline  one\n  line two\n\nA\nB"
        )
      }))

    it.effect("fails NO_TEXT on a page with nothing but scripts and chrome", () =>
      Effect.gen(function*() {
        const error = yield* failure(
          "html",
          utf8(
            "<html><head><title>Empty</title></head><body><nav>Menu</nav><script>x()</script><img " +
              "src=a.png></body></html>"
          )
        )
        assert.strictEqual(error.code, "NO_TEXT")
      }))
  })

  describe("hostile input", () => {
    it.effect("stays linear on pathological markup (a 10 MiB upload may be one line)", () =>
      Effect.gen(function*() {
        const cases: Array<[DocumentFormat, string, string]> = [
          ["md", "**a ".repeat(50_000) + "end", "end"],
          ["md", "[".repeat(200_000) + "end", "end"],
          ["md", "[a](".repeat(50_000) + "end", "end"],
          ["md", "<a ".repeat(50_000) + "end", "end"],
          ["md", "<!--".repeat(50_000) + "end", "end"],
          ["md", "# Title" + " ".repeat(200_000) + "end", "end"],
          ["txt", "start" + " ".repeat(1_000_000) + "end", "end"],
          ["html", "<span>".repeat(300_000) + "end", "end"],
          ["html", "<ul>" + "<li><p>".repeat(150_000) + "end", "end"]
        ]
        for (const [format, input, tail] of cases) {
          const started = Date.now()
          const text = yield* extractText(format, utf8(input))
          assert.isTrue(text.endsWith(tail), `${format}: ${input.slice(0, 12)}`)
          assert.isBelow(Date.now() - started, 3_000, `${format}: ${input.slice(0, 12)}`)
        }
      }))

    it.effect("keeps the text of deeply nested HTML", () =>
      Effect.gen(function*() {
        const html = "<div>".repeat(1_000) + "<p>Deep down</p>" + "</div>".repeat(1_000) + "<p>After the nest</p>"
        assert.strictEqual(yield* extractText("html", utf8(html)), "Deep down\n\nAfter the nest")
      }))

    it.effect("gives text in Chunking's canonical form", () =>
      Effect.gen(function*() {
        for (const [format, name] of [["md", "faq.md"], ["html", "plans.html"], ["csv", "prices.csv"]] as const) {
          const text = yield* extractText(format, fixture(name))
          assert.strictEqual(normalizeText(text), text, name)
        }
        const messy = yield* extractText("txt", utf8("\r\n a \u00a0\r\r\r\n\n b\u000b c\u0000d \t\n\n\n"))
        assert.strictEqual(messy, "a\n\n b\n cd")
        assert.strictEqual(normalizeText(messy), messy)
      }))
  })

  describe("pdf", () => {
    it.effect("extracts each page's text lines, pages separated by a blank line", () =>
      Effect.gen(function*() {
        const bytes = minimalPdf([
          ["Northwind Mobile price list", "Basic plan: $10 per month (5 GB)", "Pro plan: $30 per month"],
          ["Roaming passes", "Americas: $5 per day"]
        ])
        const copy = bytes.slice()
        const text = yield* extractText("pdf", bytes)
        assert.strictEqual(
          text,
          "Northwind Mobile price list\nBasic plan: $10 per month (5 GB)\nPro plan: $30 per month\n\nRoaming " +
            "passes\nAmericas: $5 per day"
        )
        // pdf.js detaches the buffer it is given; the caller's bytes are left alone and give the same text again
        assert.deepStrictEqual(bytes, copy)
        assert.strictEqual(yield* extractText("pdf", bytes), text)
      }))

    it.effect("skips pages without text, and keeps Latin-1 characters", () =>
      Effect.gen(function*() {
        const text = yield* extractText("pdf", minimalPdf([[], ["Café crème à 3 £"], []]))
        assert.strictEqual(text, "Café crème à 3 £")
      }))

    it.effect("fails NO_TEXT on a PDF with no text layer", () =>
      Effect.gen(function*() {
        const error = yield* failure("pdf", minimalPdf([[]]))
        assert.strictEqual(error.code, "NO_TEXT")
        assert.match(error.message, /no text layer/)
        assert.strictEqual((yield* failure("pdf", minimalPdf([[" ", ""]]))).code, "NO_TEXT")
      }))

    it.effect("fails INVALID_PDF on anything that is not a readable PDF", () =>
      Effect.gen(function*() {
        const notPdf = yield* failure("pdf", utf8("# Just markdown\n\nwith a .pdf name"))
        assert.strictEqual(notPdf.code, "INVALID_PDF")
        assert.strictEqual((yield* failure("pdf", new Uint8Array(0))).code, "INVALID_PDF")
        assert.strictEqual((yield* failure("pdf", minimalPdf([["Cut short"]]).slice(0, 120))).code, "INVALID_PDF")
      }))

    it.effect("fails INVALID_PDF on an encrypted PDF", () =>
      Effect.gen(function*() {
        const error = yield* failure("pdf", minimalPdf([["Secret"]], { encrypted: true }))
        assert.strictEqual(error.code, "INVALID_PDF")
        assert.match(error.message, /encrypted/)
      }))
  })
})
