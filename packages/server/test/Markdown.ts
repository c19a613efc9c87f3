/** Reading markdown as GitHub renders it: headings and their anchors, links. `Docs.test.ts` checks the docs with it. */

/** The markdown outside fenced code blocks, line by line (fences hold `# comments`, not headings). */
export const proseLines = (markdown: string): Array<string> => {
  const lines: Array<string> = []
  let fence: string | undefined
  for (const line of markdown.split("\n")) {
    const marker = line.match(/^\s*(`{3,}|~{3,})/)?.[1]
    if (fence === undefined && marker !== undefined) fence = marker
    else if (fence !== undefined && marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) {
      fence = undefined
    } else if (fence === undefined) lines.push(line)
  }
  return lines
}

/**
 * GitHub's anchors of a file's headings: the text lowercased,
 * punctuation but `-` dropped, spaces as `-`; repeats get `-1`, `-2`, …
 */
export const headingAnchors = (markdown: string): Set<string> => {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  for (const line of proseLines(markdown)) {
    const heading = line.match(/^#{1,6}\s+(.*?)\s*#*\s*$/)?.[1]
    if (heading === undefined) continue
    const text = heading.replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    const slug = text.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "").replace(/ /g, "-")
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    anchors.add(count === 0 ? slug : `${slug}-${count}`)
  }
  return anchors
}

/** The targets of a file's markdown links and images, outside code. */
export const linkTargets = (markdown: string): Array<string> =>
  proseLines(markdown)
    .map((line) => line.replace(/`[^`]*`/g, "code"))
    .flatMap((line) => [...line.matchAll(/\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)])
    .map((match) => match[1]!)
