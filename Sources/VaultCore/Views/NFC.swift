extension String {
    /// The text in Unicode NFC: what listings print of a title, a name or a preview, so a title
    /// written on a Mac (decomposed Hangul, `ᄌ` `ᅦ` `ᄌ` `ᅮ`) prints as typed on Linux (`제주`) and
    /// `vault rooms | grep 제주` finds it. The file keeps its bytes; only what is shown is composed.
    ///
    /// By the standard library's normalizer, which streams through the text once (Foundation's
    /// `precomposedStringWithCanonicalMapping` composes in place, moving the rest of the text at
    /// each composition: a line of 1.6 million decomposed characters took seconds per piece).
    ///
    ///     "제주".decomposedStringWithCanonicalMapping.nfc == "제주"   // by their bytes too
    package var nfc: String {
        // Lead bytes below 0xCC are scalars below U+0300: none of them is changed by NFC.
        if utf8.allSatisfy({ $0 < 0xCC }) { return self }
        return String(decoding: _nfcCodeUnits, as: UTF8.self)
    }
}
