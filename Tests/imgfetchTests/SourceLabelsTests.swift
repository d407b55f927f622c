@testable import imgfetch
import XCTest

/// The contact sheet's labels: what tells each shown source from the others.
final class SourceLabelsTests: XCTestCase {
    func testTheShortestPathSuffixNoOtherSourceEndsWith() {
        let labels = SourceLabels.labels(["d/0010/p010.jpg", "d/0210/p010.jpg", "/srv/x/other.jpg", "d/0010/p010.jpg"])
        XCTAssertEqual(labels, ["d/0010/p010.jpg": "0010/p010.jpg", "d/0210/p010.jpg": "0210/p010.jpg", "/srv/x/other.jpg": "other.jpg"])
    }

    func testTheHostOnlyWhenThePathsAreTheSame() {
        let labels = SourceLabels.labels(["https://a.example/img/p.jpg", "https://b.example:8080/img/p.jpg", "https://a.example/img/q.jpg?w=1"])
        XCTAssertEqual(labels["https://a.example/img/p.jpg"], "a.example/img/p.jpg")
        XCTAssertEqual(labels["https://b.example:8080/img/p.jpg"], "b.example:8080/img/p.jpg")
        XCTAssertEqual(labels["https://a.example/img/q.jpg?w=1"], "q.jpg?w=1", "the query stays with its file name")
    }

    func testAShorterPathThatIsAnotherOnesSuffixKeepsItsWholePath() {
        let labels = SourceLabels.labels(["a/b.jpg", "x/a/b.jpg"])
        XCTAssertEqual(labels, ["a/b.jpg": "a/b.jpg", "x/a/b.jpg": "x/a/b.jpg"])
    }

    func testLabelsNeverReadTheSameForDifferentSources() {
        // A query holding '/' could make two suffixes read alike: both then show their whole text.
        let sources = ["http://h/a?x=1/b", "http://h/a?x=1/b#", "file:///a/b", "/a/b", "data:image/png;base64,AAAA", "data:image/png;base64,BBBB"]
        let labels = SourceLabels.labels(sources)
        XCTAssertEqual(Set(labels.values).count, sources.count, "\(labels)")
    }

    func testALongLabelIsCutInTheMiddle() {
        let long = String(repeating: "d", count: 300) + "/p.jpg"
        let label = SourceLabels.labels(["x/" + long, "y/" + long])["x/" + long] ?? ""
        XCTAssertEqual(label.count, SourceLabels.maxLength)
        XCTAssertTrue(label.hasPrefix("x/ddd") && label.hasSuffix("ddd/p.jpg") && label.contains("…"), label)
        XCTAssertEqual(SourceLabels.cut("abcdefghij", to: 5), "ab…ij")
    }

    func testAThousandComponentsStayBounded() {
        let deep = (0..<1000).map { "c\($0)" }.joined(separator: "/")
        XCTAssertEqual(SourceLabels.components(deep).count, SourceLabels.maxParts)
        XCTAssertEqual(SourceLabels.labels([deep, deep + "x"]).count, 2)
    }
}
