import { describe, expect, it } from "vitest"
import { boundForScan, SCAN_EDGE } from "../../src/privacy/bound.ts"
import { PRIVATE_MARKER, redactText, stripPrivateBlocks } from "../../src/privacy/index.ts"

describe("<private> blocks", () => {
  it.each([
    ["a single block", "keep <private>hide</private> keep", "keep [private] keep"],
    ["uppercase and mixed-case tags", "a <PRIVATE>x</Private> b", "a [private] b"],
    ["a multi-line block", "start\n<private>\nline 1\nline 2\n</private>\nend", "start\n[private]\nend"],
    ["several blocks", "<private>1</private> mid <private>2</private> end", "[private] mid [private] end"],
    ["nested blocks, removing the outermost", "a <private>x <private>y</private> z</private> b", "a [private] b"],
    ["attributes on the opening tag", "a <private reason=\"api key\">x</private> b", "a [private] b"],
    ["whitespace inside tags", "a < private >x< /private > b", "a [private] b"],
    ["whitespace before the closing bracket", "a <private\n>x</private\n> b", "a [private] b"],
    ["an unclosed tag: everything to the end", "shown <private>hidden\nand this too", "shown [private]"],
    [
      "an unclosed nested tag: everything to the end",
      "a <private>x</private> b <private>y <private>z</private> w",
      "a [private] b [private]"
    ],
    ["a closing tag alone: the block began in another field, so all before it", "a </private> b", "[private] b"],
    // A close with no open after a block: its open was there but unreadable, so all since the block goes.
    ["a stray closing tag after a closed block", "<private>x</private> a </private> b", "[private][private] b"],
    [
      "a quoted attribute holding />, after an earlier block",
      "<private>one</private> then <private note=\"a/>b\">AttrS3cret2x</private> after",
      "[private] then [private] after"
    ],
    ["a quoted attribute holding >", "a <private why='x > y'>AttrS3cret3x</private> b", "a [private] b"],
    ["a self-closing tag", "a <private/> b", "a  b"],
    ["an empty block", "a <private></private> b", "a [private] b"]
  ])("removes %s", (_, input, expected) => {
    expect(redactText(input).text).toBe(expected)
  })

  it.each([
    // Not <privateKey>x</privateKey>: that element is a credential the secret rules mask.
    ["similar tag names", "<privateNotes>x</privateNotes> and <private-notes>y</private-notes>"],
    ["the word in prose", "this is a private repository; keep it private."],
    ["a tag without its closing bracket", "use <private to hide things"]
  ])("leaves %s alone", (_, input) => {
    expect(redactText(input)).toEqual({ text: input, redactions: 0 })
  })

  it("counts each removed block, not each tag", () => {
    expect(stripPrivateBlocks("<private>a<private>b</private></private> <private>c</private>").redactions).toBe(2)
    expect(stripPrivateBlocks("a </private> b").redactions).toBe(1)
    expect(stripPrivateBlocks("<private>a</private> b </private> c").redactions).toBe(2)
  })

  it("hides the kept tail of a cut text up to a stray close, whose open was in the cut middle", () => {
    const edge = "x".repeat(SCAN_EDGE)
    const long = `<private>a</private>${edge}<private>${"y".repeat(SCAN_EDGE)} TruncS3cretZZ </private> done`
    const bounded = boundForScan(long) as string
    const { text } = redactText(bounded)
    expect(text).not.toContain("TruncS3cretZZ")
    // What precedes the cut, head and marker, stays: the block could not have opened there unseen.
    expect(text).toMatch(/^\[private\]x{99980}[\s\S]*cut before scanning\] …\n\[private\] done$/)
  })

  // Go's JSON encoder writes < and > as \u003c and \u003e (gh, kubectl, docker print a body so), and a web page or
  // an XML file holds them as &lt; and &gt;: the block is the user's all the same.
  it.each([
    ["JSON-escaped by Go", String.raw`{"body":"see \u003cprivate\u003eEscPriv-41zz\u003c/private\u003e done"}`],
    ["JSON-escaped in upper case", String.raw`see \u003Cprivate\u003EEscPriv-41zz\u003C/private\u003E done`],
    ["HTML-escaped", "<p>see &lt;private&gt;EscPriv-41zz&lt;/private&gt; done</p>"],
    ["HTML-escaped, unclosed", "<p>see &lt;private&gt;EscPriv-41zz and the rest</p>"],
    ["HTML-escaped close in another field", "EscPriv-41zz &lt;/private&gt; done"]
  ])("removes a block whose tags are %s", (_, input) => {
    const { text } = redactText(input)
    expect(text).not.toContain("EscPriv-41zz")
    expect(text).toContain(PRIVATE_MARKER)
  })

  // With attributes, read as a plain tag's are: quoted as each form quotes (\", ", &quot;), a quoted value holding the
  // escaped `>`, blanks escaped as JSON escapes them. Unclosed, the block hides the rest of its text.
  it.each([
    ["JSON-escaped", String.raw`a \u003cprivate reason=\"x\"\u003eEscAttr-51zz\u003c/private\u003e b`],
    ["HTML-escaped", `a &lt;private class="a"&gt;EscAttr-51zz&lt;/private&gt; b`],
    ["HTML-escaped, quoted as entities", `a &lt;private class=&quot;a&gt;b&quot;&gt;EscAttr-51zz&lt;/private&gt; b`],
    [
      "JSON-escaped, a value holding >",
      String.raw`a \u003cprivate note=\"x\u003ey\"\u003eEscAttr-51zz\u003c/private\u003e b`
    ],
    [
      "JSON-escaped over escaped lines",
      String.raw`a \u003cprivate\n  reason=\"x\"\n\u003eEscAttr-51zz\u003c/private\u003e b`
    ]
  ])("removes a block whose escaped tags have attributes: %s", (_, input) => {
    expect(redactText(input).text).toBe("a [private] b")
  })

  it.each([
    ["JSON-escaped", String.raw`shown \u003cprivate reason=\"x\"\u003eEscAttr-52zz and the rest`],
    ["HTML-escaped", `shown &lt;private class="a"&gt;EscAttr-52zz and the rest`]
  ])("hides the rest of the text after an unclosed escaped tag with attributes: %s", (_, input) => {
    expect(redactText(input).text).toBe("shown [private]")
  })

  it("drops an escaped self-closing tag with attributes, and leaves escaped tags of other names", () => {
    expect(redactText(String.raw`a \u003cprivate id=\"1\" /\u003e b &lt;private a="x"/\n&gt; c`).text).toBe("a  b  c")
    const others = String.raw`a \u003cprivateer x\u003e b &lt;private-notes a="b"&gt; c`
    expect(redactText(others)).toEqual({ text: others, redactions: 0 })
  })

  it("keeps what surrounds an escaped block", () => {
    expect(redactText(String.raw`a \u003cprivate\u003ex\u003c/private\u003e b`).text).toBe("a [private] b")
    expect(redactText("a &lt;private&gt;x&lt;/private&gt; b").text).toBe("a [private] b")
    expect(redactText("a &lt;private-notes&gt; b &lt;privateKey&gt;").text).toBe(
      "a &lt;private-notes&gt; b &lt;privateKey&gt;"
    )
  })

  it("removes private blocks before looking for secrets, so no secret inside survives in any shape", () => {
    const result = redactText("<private>password: hunter2 AKIAIOSFODNN7EXAMPLE</private>")
    expect(result).toEqual({ text: PRIVATE_MARKER, redactions: 1 })
  })
})
