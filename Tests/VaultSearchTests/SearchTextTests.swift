import Testing
@testable import VaultSearch

/// NFC and case folding, as both the scan and the index use them.
@Suite struct SearchTextTests {
    @Test(arguments: [
        ("Straße", "strasse"), ("ΣΑΣ ς", "σασ σ"), ("\u{212A}elvin", "kelvin"), ("ПРИВЕТ", "привет"),
        ("부산 여행", "부산 여행"), ("ＡＢＣ", "ａｂｃ"),
    ])
    func foldingFollowsUnicodeCaseFolding(text: String, folded: String) {
        #expect(SearchText.fold(text) == folded)
    }

    @Test func keysAreNFC() {
        let decomposed = "부산".decomposedStringWithCanonicalMapping
        #expect(Array(decomposed.utf8) != Array("부산".utf8))
        #expect(Array(SearchText.key(decomposed, folding: false).utf8) == Array("부산".utf8))
    }

    @Test func unstableCodePointsAreThoseThatCanChangeUnderNFC() {
        #expect(SearchText.isUnstable(0x301))  // combining acute
        #expect(SearchText.isUnstable(0x1161))  // Hangul vowel jamo
        #expect(SearchText.isUnstable(0x3099))  // kana voiced mark
        #expect(SearchText.isUnstable(0x212B))  // Angstrom sign
        #expect(!SearchText.isUnstable(0xAC00))  // 가
        #expect(!SearchText.isUnstable(0x41))
        #expect(!SearchText.isUnstable(0x1F600))  // emoji
    }
}
