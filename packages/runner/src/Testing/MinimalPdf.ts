/**
 * A minimal, valid PDF 1.4 for tests: a catalog, a page tree and one page per entry of `pages`,
 * each line drawn with the standard Helvetica font (`BT … Tj … ET`), and a cross-reference table
 * with exact byte offsets. A page with no lines has an empty content stream (no text layer).
 * Text is written as Latin-1 bytes (WinAnsi agrees with Latin-1 there); `\`, `(` and `)` are escaped.
 *
 * `encrypted` adds a standard security handler whose keys match no password, as a reader sees a
 * password-protected file (the content itself is left in clear; no reader gets that far).
 */
export const minimalPdf = (
  pages: ReadonlyArray<ReadonlyArray<string>>,
  options: { readonly encrypted?: boolean } = {}
): Uint8Array => {
  const objects: Array<string> = []
  const add = (body: string): number => objects.push(body)

  const catalog = add("")
  const pageTree = add("")
  const font = add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
  const kids = pages.map((lines) => {
    const content = lines.length === 0
      ? ""
      : [
        "BT",
        "/F1 12 Tf",
        "16 TL",
        "72 720 Td",
        ...lines.map((line, i) => `${i === 0 ? "" : "T* "}(${escape(line)}) Tj`),
        "ET"
      ]
        .join("\n")
    const stream = add(`<< /Length ${latin1Length(content)} >>\nstream\n${content}\nendstream`)
    return add(
      `<< /Type /Page /Parent ${pageTree} 0 R /MediaBox [0 0 612 792] ` +
        `/Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${stream} 0 R >>`
    )
  })
  objects[catalog - 1] = `<< /Type /Catalog /Pages ${pageTree} 0 R >>`
  objects[pageTree - 1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(" ")}] /Count ${kids.length} >>`

  // The second line's high bytes mark the file as binary, as the specification recommends.
  let out = "%PDF-1.4\n%\u00e2\u00e3\u00cf\u00d3\n"
  const offsets: Array<number> = []
  objects.forEach((body, i) => {
    offsets.push(latin1Length(out))
    out += `${i + 1} 0 obj\n${body}\nendobj\n`
  })
  const xref = latin1Length(out)
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`
  for (const offset of offsets) out += `${String(offset).padStart(10, "0")} 00000 n \n`
  const encrypt = options.encrypted === true
    ? ` /Encrypt << /Filter /Standard /V 1 /R 2 /O <${"4f".repeat(32)}> /U <${"55".repeat(32)}> /P -4 >>` +
      ` /ID [<${"0123456789abcdef".repeat(2)}> <${"0123456789abcdef".repeat(2)}>]`
    : ""
  out += `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R${encrypt} >>\nstartxref\n${xref}\n%%EOF\n`
  return Uint8Array.from(out, (c) => c.charCodeAt(0))
}

const escape = (text: string): string => text.replace(/[\\()]/g, (c) => `\\${c}`)

const latin1Length = (text: string): number => {
  for (const c of text) {
    if (c.charCodeAt(0) > 0xff) throw new Error(`Not encodable in a minimal PDF: ${JSON.stringify(c)}`)
  }
  return text.length
}
