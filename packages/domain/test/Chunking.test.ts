import { assert, describe, it } from "@effect/vitest"
import {
  type Chunk,
  chunkText,
  DEFAULT_CHUNK_OPTIONS,
  normalizeText,
  splitParagraphs,
  splitSentences
} from "@voiceagent/domain/Chunking"
import fc from "fast-check"

/** `n` characters of lowercase filler words, no punctuation: "aaaa aaaa …". */
const words = (n: number, word = "word") => Array.from({ length: n }, () => word).join(" ")

const sentence = (i: number) => `Sentence number ${i} is here.`
const SENTENCE_RE = /^Sentence number \d+ is here\.(?: Sentence number \d+ is here\.)*$/

/** The shared invariants of every chunking. */
const checkInvariants = (input: string, chunks: ReadonlyArray<Chunk>, maxChars: number, overlapChars: number) => {
  const normalized = normalizeText(input)
  const covered = new Array<boolean>(normalized.length).fill(false)
  chunks.forEach((chunk, i) => {
    assert.strictEqual(chunk.index, i)
    assert.strictEqual(normalized.slice(chunk.start, chunk.end), chunk.text)
    assert.isTrue(chunk.text.length > 0 && chunk.text.trim().length > 0, "non-empty")
    assert.isAtMost(chunk.text.length, maxChars)
    assert.strictEqual(chunk.text, chunk.text.trim(), "starts and ends on non-whitespace")
    if (i > 0) {
      const previous = chunks[i - 1]
      assert.isAbove(chunk.start, previous.start, "increasing start")
      assert.isAbove(chunk.end, previous.end, "each chunk adds text")
      assert.isAtMost(Math.max(0, previous.end - chunk.start), overlapChars, "overlap bound")
    }
    for (let k = chunk.start; k < chunk.end; k++) covered[k] = true
  })
  for (let k = 0; k < normalized.length; k++) {
    if (/\S/.test(normalized[k])) assert.isTrue(covered[k], `character ${k} covered`)
  }
}

describe("Chunking", () => {
  describe("normalizeText", () => {
    it("unifies line endings, trims trailing spaces, collapses blank lines, trims", () => {
      assert.strictEqual(
        normalizeText("  \r\n Title  \r\nline two\t\r\r\r\n  \n\nNext para  \n\n\n"),
        "Title\nline two\n\nNext para"
      )
      assert.strictEqual(normalizeText("a\n\nb"), "a\n\nb")
      assert.strictEqual(normalizeText("  \n \t "), "")
    })

    it("takes linear time on long runs of whitespace (hostile uploads)", () => {
      const started = performance.now()
      const text = `a${" ".repeat(200_000)}b${"\t ".repeat(100_000)}\n${" ".repeat(200_000)}`
      assert.strictEqual(normalizeText(text), `a${" ".repeat(200_000)}b`)
      const chunks = chunkText(`${"word ".repeat(50_000)}${" ".repeat(200_000)}end.`)
      assert.isAbove(chunks.length, 100)
      // the regular expression this replaced took about 9 s on 100,000 spaces
      assert.isBelow(performance.now() - started, 2_000)
    })

    it("is idempotent", () => {
      fc.assert(
        fc.property(fc.string({ unit: fc.constantFrom("a", " ", "\t", "\n", "\r", ".", "\u00a0") }), (s) => {
          const once = normalizeText(s)
          assert.strictEqual(normalizeText(once), once)
        })
      )
    })
  })

  describe("splitParagraphs", () => {
    it("splits on blank lines, including whitespace-only ones", () => {
      assert.deepStrictEqual(splitParagraphs("One\nstill one\n\nTwo\n   \n\n Three "), [
        "One\nstill one",
        "Two",
        "Three"
      ])
      assert.deepStrictEqual(splitParagraphs("   "), [])
    })
  })

  describe("splitSentences", () => {
    it("splits on . ! ? … followed by whitespace or the end", () => {
      assert.deepStrictEqual(splitSentences("It works. Really!  Does it? Yes… Done."), [
        "It works.",
        "Really!",
        "Does it?",
        "Yes…",
        "Done."
      ])
    })

    it("keeps closing quotes with their sentence and treats ?! and ... as one end", () => {
      assert.deepStrictEqual(splitSentences(`He said "Hi." Then what?! Wait... OK`), [
        `He said "Hi."`,
        "Then what?!",
        "Wait...",
        "OK"
      ])
    })

    it("does not split on abbreviations, initials or decimals", () => {
      const text = "Dr. Smith met Mr. J. Doe, e.g. at 3.14 pm. Fruit, i.e. apples etc. are fine. The U.S. agreed."
      assert.deepStrictEqual(splitSentences(text), [
        "Dr. Smith met Mr. J. Doe, e.g. at 3.14 pm.",
        "Fruit, i.e. apples etc. are fine.",
        "The U.S. agreed."
      ])
      assert.deepStrictEqual(splitSentences("Pi is 3.14159 exactly. Or not."), ["Pi is 3.14159 exactly.", "Or not."])
    })

    it("splits CJK sentences without whitespace", () => {
      assert.deepStrictEqual(splitSentences("你好。世界！好吗？"), ["你好。", "世界！", "好吗？"])
    })

    it("does not split inside a word or URL", () => {
      assert.deepStrictEqual(splitSentences("See example.com/a.b for more."), ["See example.com/a.b for more."])
    })
  })

  describe("chunkText", () => {
    it("returns [] for empty or whitespace-only input", () => {
      assert.deepStrictEqual(chunkText(""), [])
      assert.deepStrictEqual(chunkText(" \n\r\n\t "), [])
    })

    it("uses the defaults", () => {
      assert.deepStrictEqual(DEFAULT_CHUNK_OPTIONS, { maxChars: 1000, overlapChars: 150 })
      const chunks = chunkText("Short text.")
      assert.deepStrictEqual(chunks, [{ index: 0, text: "Short text.", start: 0, end: 11 }])
    })

    it("rejects invalid options", () => {
      assert.throws(() => chunkText("x", { maxChars: 0, overlapChars: 0 }), RangeError)
      assert.throws(() => chunkText("x", { maxChars: 10.5, overlapChars: 0 }), RangeError)
      assert.throws(() => chunkText("x", { maxChars: 10, overlapChars: -1 }), RangeError)
    })

    it("packs whole paragraphs together until the limit", () => {
      const p = (c: string) => `${c.repeat(29)}.` // 30 chars
      const input = [p("a"), p("b"), p("c"), p("d"), p("e")].join("\n\n")
      const chunks = chunkText(input, { maxChars: 100, overlapChars: 0 })
      // 30 + 2 + 30 + 2 + 30 = 94 fits; a fourth paragraph would make 126.
      assert.deepStrictEqual(
        chunks.map((c) => c.text),
        [[p("a"), p("b"), p("c")].join("\n\n"), [p("d"), p("e")].join("\n\n")]
      )
      // A paragraph that does not fit the rest of a chunk starts the next one whole.
      const mixed = chunkText(`${p("a")}\n\n${"b".repeat(79)}.`, { maxChars: 100, overlapChars: 0 })
      assert.deepStrictEqual(
        mixed.map((c) => c.text),
        [p("a"), `${"b".repeat(79)}.`]
      )
    })

    it("splits a paragraph longer than maxChars by sentences", () => {
      const paragraph = Array.from({ length: 10 }, (_, i) => sentence(i)).join(" ")
      const chunks = chunkText(paragraph, { maxChars: 90, overlapChars: 0 })
      assert.isAbove(chunks.length, 1)
      for (const chunk of chunks) assert.match(chunk.text, SENTENCE_RE)
      assert.strictEqual(chunks.map((c) => c.text).join(" "), paragraph)
    })

    it("does not cut a sentence at an abbreviation or a decimal", () => {
      const s1 = "Dr. J. Smith paid 3.14 dollars, e.g. for tea."
      const s2 = "Mr. Jones paid 2.71 dollars, i.e. for coffee."
      const chunks = chunkText(`${s1} ${s2}`, { maxChars: 60, overlapChars: 0 })
      assert.deepStrictEqual(
        chunks.map((c) => c.text),
        [s1, s2]
      )
    })

    it("cuts a sentence longer than maxChars at word boundaries", () => {
      const long = words(60) // 299 chars, no sentence end
      const chunks = chunkText(long, { maxChars: 50, overlapChars: 0 })
      assert.isAbove(chunks.length, 1)
      for (const chunk of chunks) {
        assert.match(chunk.text, /^word(?: word)*$/)
        assert.isAtMost(chunk.text.length, 50)
      }
      assert.strictEqual(chunks.map((c) => c.text).join(" "), long)
    })

    it("starts an over-long sentence in a new chunk rather than ending a chunk on its first words", () => {
      const chunks = chunkText(`Short one. ${words(20)}`, { maxChars: 50, overlapChars: 0 })
      assert.strictEqual(chunks[0].text, "Short one.")
      assert.match(chunks[1].text, /^word(?: word)*$/)
    })

    it("hard-cuts only a single word longer than maxChars", () => {
      const chunks = chunkText(`hi ${"x".repeat(120)} there`, { maxChars: 50, overlapChars: 0 })
      assert.deepStrictEqual(
        chunks.map((c) => c.text),
        ["hi", "x".repeat(50), "x".repeat(50), `${"x".repeat(20)} there`]
      )
    })

    it("does not hard-cut inside a surrogate pair when it can avoid it", () => {
      const chunks = chunkText("a😀😀😀", { maxChars: 2, overlapChars: 0 })
      assert.deepStrictEqual(
        chunks.map((c) => c.text),
        ["a", "😀", "😀", "😀"]
      )
    })

    it("starts each later chunk with trailing whole sentences of the previous one", () => {
      const paragraph = Array.from({ length: 20 }, (_, i) => sentence(i)).join(" ")
      const overlapChars = 60
      const chunks = chunkText(paragraph, { maxChars: 150, overlapChars })
      assert.isAbove(chunks.length, 2)
      for (let i = 1; i < chunks.length; i++) {
        const previous = chunks[i - 1]
        const chunk = chunks[i]
        assert.isBelow(chunk.start, previous.end, "overlap present")
        const overlap = paragraph.slice(chunk.start, previous.end)
        assert.isAtMost(overlap.length, overlapChars)
        assert.match(overlap, SENTENCE_RE, "whole sentences")
        assert.isTrue(previous.text.endsWith(overlap) && chunk.text.startsWith(overlap))
      }
      checkInvariants(paragraph, chunks, 150, overlapChars)
    })

    it("overlaps across paragraphs too", () => {
      const para = (n: number) => [sentence(n), sentence(n + 1), sentence(n + 2)].join(" ")
      const input = [para(0), para(10), para(20)].join("\n\n")
      const chunks = chunkText(input, { maxChars: 120, overlapChars: 30 })
      assert.deepStrictEqual(
        chunks.map((c) => c.text),
        [para(0), `${sentence(2)}\n\n${para(10)}`, `${sentence(12)}\n\n${para(20)}`]
      )
      checkInvariants(input, chunks, 120, 30)
    })

    it("drops overlap sentences that would not leave room for the next paragraph", () => {
      const para = (n: number) => [sentence(n), sentence(n + 1), sentence(n + 2)].join(" ")
      const input = [para(0), para(10)].join("\n\n")
      // 26 + 2 + 83 = 111 > 100: no room for even the last sentence of the first paragraph.
      const chunks = chunkText(input, { maxChars: 100, overlapChars: 30 })
      assert.deepStrictEqual(
        chunks.map((c) => c.text),
        [para(0), para(10)]
      )
    })

    it("falls back to trailing whole words when the last sentence is too long to overlap", () => {
      const long = words(40) // one 199-char sentence
      const chunks = chunkText(long, { maxChars: 100, overlapChars: 22 })
      assert.isAbove(chunks.length, 1)
      for (let i = 1; i < chunks.length; i++) {
        const overlap = long.slice(chunks[i].start, chunks[i - 1].end)
        assert.match(overlap, /^word(?: word)*$/)
        assert.isAtMost(overlap.length, 22)
        assert.isAtLeast(overlap.length, 14) // "word word word" at least fits in 22
      }
      checkInvariants(long, chunks, 100, 22)
    })

    it("reports offsets into the normalized text", () => {
      const input = "  First para.\r\n\r\n\r\n\r\nSecond   para. With two sentences.  \r\n\r\nThird."
      const normalized = normalizeText(input)
      const chunks = chunkText(input, { maxChars: 30, overlapChars: 12 })
      assert.isAbove(chunks.length, 1)
      for (const chunk of chunks) assert.strictEqual(normalized.slice(chunk.start, chunk.end), chunk.text)
      checkInvariants(input, chunks, 30, 12)
    })

    describe("properties", () => {
      const token = fc.oneof(
        {
          weight: 6,
          arbitrary: fc.constantFrom("the", "cat", "sat", "on", "a", "mat", "Dr.", "e.g.", "3.14", "J.", "你好。")
        },
        {
          weight: 3,
          arbitrary: fc.constantFrom(".", "!", "?", "…", "...", " ", " ", "\n", "\n\n", "\r\n", "\t", "\u00a0")
        },
        { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 80 }) },
        { weight: 1, arbitrary: fc.constantFrom("😀", "x".repeat(150), "🎉".repeat(40)) }
      )
      const text = fc.oneof(
        fc.array(token, { maxLength: 200 }).map((ts) => ts.join(" ")),
        fc.array(token, { maxLength: 200 }).map((ts) => ts.join("")),
        fc.string({ unit: "binary", maxLength: 300 })
      )
      const options = fc
        .record({ maxChars: fc.integer({ min: 1, max: 200 }), overlapChars: fc.integer({ min: 0, max: 250 }) })

      it(
        "every chunk is non-empty, within maxChars, in order, overlapping at most overlapChars, and all text is " +
          "covered",
        () => {
          fc.assert(
            fc.property(text, options, (input, opts) => {
              checkInvariants(input, chunkText(input, opts), opts.maxChars, opts.overlapChars)
            }),
            { numRuns: 500 }
          )
        }
      )

      it("is deterministic and depends only on the normalized text", () => {
        fc.assert(
          fc.property(text, options, (input, opts) => {
            const chunks = chunkText(input, opts)
            assert.deepStrictEqual(chunkText(input, opts), chunks)
            assert.deepStrictEqual(chunkText(normalizeText(input), opts), chunks)
          }),
          { numRuns: 200 }
        )
      })

      it("without overlap, chunks are disjoint", () => {
        fc.assert(
          fc.property(text, fc.integer({ min: 1, max: 200 }), (input, maxChars) => {
            const chunks = chunkText(input, { maxChars, overlapChars: 0 })
            for (let i = 1; i < chunks.length; i++) assert.isAtLeast(chunks[i].start, chunks[i - 1].end)
          })
        )
      })
    })
  })
})
