/// The lines of a file: ranges into its bytes, each with its line ending (`\n` or `\r\n`), the last
/// one without when the file does not end with a newline.
struct TextLines {
    let bytes: [UInt8]
    let ranges: [Range<Int>]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        var ranges: [Range<Int>] = []
        var start = 0
        for i in bytes.indices where bytes[i] == 10 {
            ranges.append(start..<(i + 1))
            start = i + 1
        }
        if start < bytes.count { ranges.append(start..<bytes.count) }
        self.ranges = ranges
    }

    var count: Int { ranges.count }

    subscript(i: Int) -> ArraySlice<UInt8> { bytes[ranges[i]] }

    /// The bytes of lines `r`.
    func bytes(_ r: Range<Int>) -> ArraySlice<UInt8> {
        guard let first = r.first else { return [] }
        return bytes[ranges[first].lowerBound..<ranges[r.upperBound - 1].upperBound]
    }
}

/// A line (or token) diff: Myers' O((N+M)·D) algorithm in linear space.
enum LineDiff {
    /// A change from `a[old]` to `b[new]`; between two hunks the sequences are equal.
    struct Hunk: Equatable {
        var old: Range<Int>
        var new: Range<Int>
    }

    /// The hunks that turn `a` into `b`, in order, never touching each other.
    ///
    /// Elements are compared as numbers (the caller interns lines). Elements of one side that never
    /// occur in the other cannot match and are left out of the search, as GNU diff does: a file
    /// rewritten whole costs no more than one edited a little.
    static func hunks(_ a: [Int], _ b: [Int]) -> [Hunk] {
        let inB = Set(b)
        let inA = Set(a)
        let aKept = a.indices.filter { inB.contains(a[$0]) }
        let bKept = b.indices.filter { inA.contains(b[$0]) }
        var search = Search(a: aKept.map { a[$0] }, b: bKept.map { b[$0] })
        search.run(0, aKept.count, 0, bKept.count)
        var hunks: [Hunk] = []
        var x = 0
        var y = 0
        for (i, j) in search.matches + [(aKept.count, bKept.count)] {
            let ai = i < aKept.count ? aKept[i] : a.count
            let bj = j < bKept.count ? bKept[j] : b.count
            if ai > x || bj > y { hunks.append(Hunk(old: x..<ai, new: y..<bj)) }
            x = ai + 1
            y = bj + 1
        }
        return hunks
    }

    /// The recursive middle-snake search; `matches` are the pairs of equal elements found, in order.
    private struct Search {
        let a: [Int]
        let b: [Int]
        var matches: [(Int, Int)] = []
        var forward: [Int] = []
        var backward: [Int] = []

        init(a: [Int], b: [Int]) {
            self.a = a
            self.b = b
            let size = 2 * (a.count + b.count) + 8
            forward = [Int](repeating: 0, count: size)
            backward = [Int](repeating: 0, count: size)
        }

        mutating func run(_ aLo: Int, _ aHi: Int, _ bLo: Int, _ bHi: Int) {
            var aLo = aLo, aHi = aHi, bLo = bLo, bHi = bHi
            while aLo < aHi, bLo < bHi, a[aLo] == b[bLo] {
                matches.append((aLo, bLo))
                aLo += 1
                bLo += 1
            }
            var suffix = 0
            while aLo < aHi, bLo < bHi, a[aHi - 1] == b[bHi - 1] {
                aHi -= 1
                bHi -= 1
                suffix += 1
            }
            if aLo < aHi, bLo < bHi {
                let (x, y, u, v) = middleSnake(aLo, aHi, bLo, bHi)
                run(aLo, x, bLo, y)
                for k in 0..<(u - x) { matches.append((x + k, y + k)) }
                run(u, aHi, v, bHi)
            }
            for k in 0..<suffix { matches.append((aHi + k, bHi + k)) }
        }

        /// The middle snake of the shortest edit script from `a[aLo..<aHi]` to `b[bLo..<bHi]`
        /// (both non-empty, first and last elements different): its start and end points.
        mutating func middleSnake(_ aLo: Int, _ aHi: Int, _ bLo: Int, _ bHi: Int) -> (Int, Int, Int, Int) {
            let n = aHi - aLo
            let m = bHi - bLo
            let delta = n - m
            let odd = delta & 1 != 0
            let maxD = (n + m + 1) / 2
            // Diagonal k = x - y is stored at k + offset; both arrays cover -maxD-1 ... delta+maxD+1.
            let offset = maxD + abs(delta) + 2
            forward[offset + 1] = 0
            backward[offset + delta + 1] = n + 1
            for d in 0...maxD {
                var k = -d
                while k <= d {
                    var x: Int
                    if k == -d || (k != d && forward[offset + k - 1] < forward[offset + k + 1]) {
                        x = forward[offset + k + 1]
                    } else {
                        x = forward[offset + k - 1] + 1
                    }
                    var y = x - k
                    let sx = x
                    while x < n, y < m, a[aLo + x] == b[bLo + y] {
                        x += 1
                        y += 1
                    }
                    forward[offset + k] = x
                    if odd, k >= delta - (d - 1), k <= delta + (d - 1), backward[offset + k] <= x {
                        return (aLo + sx, bLo + sx - k, aLo + x, bLo + y)
                    }
                    k += 2
                }
                var c = -d
                while c <= d {
                    let k = c + delta
                    var x: Int
                    if c == -d || (c != d && backward[offset + k + 1] - 1 < backward[offset + k - 1]) {
                        x = backward[offset + k + 1] - 1
                    } else {
                        x = backward[offset + k - 1]
                    }
                    var y = x - k
                    let sx = x
                    while x > 0, y > 0, a[aLo + x - 1] == b[bLo + y - 1] {
                        x -= 1
                        y -= 1
                    }
                    backward[offset + k] = x
                    if !odd, k >= -d, k <= d, forward[offset + k] >= x {
                        return (aLo + x, bLo + y, aLo + sx, bLo + sx - k)
                    }
                    c += 2
                }
            }
            // Unreachable for non-empty inputs: the paths meet by d = maxD.
            return (aLo, bLo, aLo, bLo)
        }
    }
}

/// A three-way merge of sequences (diff3): the changes from base to ours and from base to theirs,
/// applied together where they do not overlap.
enum Diff3 {
    /// One stretch of the merge.
    struct Region: Equatable {
        enum Kind: Equatable {
            /// Neither side changed it.
            case unchanged
            /// Only ours changed it.
            case ours
            /// Only theirs changed it.
            case theirs
            /// Both changed it the same way.
            case same
            /// Both changed it differently.
            case conflict
        }
        var kind: Kind
        var base: Range<Int>
        var ours: Range<Int>
        var theirs: Range<Int>
    }

    /// The regions of a merge of `ours` and `theirs` from `base`, covering all three in order.
    ///
    /// Changes of the two sides that overlap or touch (one ends where the other starts, or both
    /// insert at the same place) form one region: as in git, adjacent changes are a conflict,
    /// because nothing says in which order they belong. Identical changes merge as one.
    static func regions(base: [Int], ours: [Int], theirs: [Int]) -> [Region] {
        let oh = LineDiff.hunks(base, ours)
        let th = LineDiff.hunks(base, theirs)
        var regions: [Region] = []
        var i = 0
        var j = 0
        var basePos = 0
        var oursOffset = 0
        var theirsOffset = 0
        func stable(to end: Int) {
            guard end > basePos else { return }
            regions.append(
                Region(
                    kind: .unchanged, base: basePos..<end, ours: (basePos + oursOffset)..<(end + oursOffset),
                    theirs: (basePos + theirsOffset)..<(end + theirsOffset)))
        }
        while i < oh.count || j < th.count {
            let lo: Int
            if j >= th.count || (i < oh.count && oh[i].old.lowerBound <= th[j].old.lowerBound) {
                lo = oh[i].old.lowerBound
            } else {
                lo = th[j].old.lowerBound
            }
            var hi = lo
            let firstO = i
            let firstT = j
            while true {
                if i < oh.count, oh[i].old.lowerBound <= hi {
                    hi = max(hi, oh[i].old.upperBound)
                    i += 1
                } else if j < th.count, th[j].old.lowerBound <= hi {
                    hi = max(hi, th[j].old.upperBound)
                    j += 1
                } else {
                    break
                }
            }
            stable(to: lo)
            func side(_ hunks: ArraySlice<LineDiff.Hunk>, _ offset: Int) -> Range<Int> {
                guard let first = hunks.first, let last = hunks.last else { return (lo + offset)..<(hi + offset) }
                let start = first.new.lowerBound - (first.old.lowerBound - lo)
                return start..<(last.new.upperBound + (hi - last.old.upperBound))
            }
            let o = side(oh[firstO..<i], oursOffset)
            let t = side(th[firstT..<j], theirsOffset)
            let kind: Region.Kind
            if firstT == j {
                kind = .ours
            } else if firstO == i {
                kind = .theirs
            } else {
                kind = ours[o] == theirs[t] ? .same : .conflict
            }
            regions.append(Region(kind: kind, base: lo..<hi, ours: o, theirs: t))
            oursOffset = o.upperBound - hi
            theirsOffset = t.upperBound - hi
            basePos = hi
        }
        stable(to: base.count)
        return regions
    }

    /// Numbers for the elements of three sequences, equal elements getting equal numbers.
    static func intern<T: Hashable>(_ base: [T], _ ours: [T], _ theirs: [T]) -> ([Int], [Int], [Int]) {
        var table: [T: Int] = [:]
        func numbers(_ items: [T]) -> [Int] {
            items.map { item in
                if let n = table[item] { return n }
                let n = table.count
                table[item] = n
                return n
            }
        }
        return (numbers(base), numbers(ours), numbers(theirs))
    }
}

/// A three-way merge of the lines of a text.
struct LineMerge {
    let base: TextLines
    let ours: TextLines
    let theirs: TextLines
    let regions: [Diff3.Region]

    init(base: [UInt8], ours: [UInt8], theirs: [UInt8]) {
        self.base = TextLines(base)
        self.ours = TextLines(ours)
        self.theirs = TextLines(theirs)
        let lines = { (t: TextLines) in t.ranges.map { t.bytes[$0] } }
        let (b, o, t) = Diff3.intern(lines(self.base), lines(self.ours), lines(self.theirs))
        regions = Diff3.regions(base: b, ours: o, theirs: t)
    }

    var hasConflict: Bool { regions.contains { $0.kind == .conflict } }

    /// The merged text; a conflicting region is written by `conflict` (given ours' and theirs' lines).
    func merged(conflict: (ArraySlice<UInt8>, ArraySlice<UInt8>) -> [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(max(ours.bytes.count, theirs.bytes.count))
        for r in regions {
            switch r.kind {
            case .unchanged: out += base.bytes(r.base)
            case .ours, .same: out += ours.bytes(r.ours)
            case .theirs: out += theirs.bytes(r.theirs)
            case .conflict: out += conflict(ours.bytes(r.ours), theirs.bytes(r.theirs))
            }
        }
        return out
    }
}
