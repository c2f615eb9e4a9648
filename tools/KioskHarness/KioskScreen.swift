import JSONCore

/// What the kiosk page shows, read from its DOM.
public struct KioskScreen: Sendable, CustomStringConvertible {
    public let outcome: String
    public let tone: String
    public let icon: String
    public let seq: String
    public let message: String
    public let product: String
    public let seal: String
    public let sealText: String
    public let theft: String
    public let theftText: String
    public let area: String
    public let live: String
    /// The screen's computed background colour, as `rgb(r, g, b)`: what a buyer two metres away sees.
    public let background: String

    init(_ json: JSON) {
        func text(_ key: String) -> String { json[key]?.stringValue ?? "" }
        outcome = text("outcome")
        tone = text("tone")
        icon = text("icon")
        seq = text("seq")
        message = text("message")
        product = text("product")
        seal = text("seal")
        sealText = text("sealText")
        theft = text("theft")
        theftText = text("theftText")
        area = text("area")
        live = text("live")
        background = text("background")
    }

    public var description: String {
        "outcome=\(outcome) tone=\(tone) icon=\(icon) seq=\(seq) message=\(message.debugDescription) product=\(product.debugDescription) "
            + "seal=\(seal) \(sealText.debugDescription) theft=\(theft) \(theftText.debugDescription) area=\(area.debugDescription) "
            + "background=\(background)"
    }

    /// A script that reads the screen; the parts hidden on the page read as "".
    static let reader = """
        (() => {
          const v = document.getElementById('verdict');
          const shown = (id) => { const n = document.getElementById(id); return n.hidden ? '' : n.textContent; };
          return { outcome: v.dataset.outcome, tone: document.body.dataset.tone,
                   icon: document.getElementById('icon').textContent, seq: v.dataset.seq || '',
                   message: document.getElementById('message').textContent, product: shown('product'),
                   seal: v.dataset.seal, sealText: shown('seal'), theft: v.dataset.theft, theftText: shown('theft'),
                   area: shown('area'), live: v.getAttribute('aria-live') || '',
                   background: getComputedStyle(document.body).backgroundColor };
        })()
        """
}

extension BrowserPage {
    public func screen() async throws -> KioskScreen {
        KioskScreen(try await evaluate(KioskScreen.reader))
    }

    /// Waits until the page's state matches `condition` (a JavaScript expression over `v`, the #verdict element),
    /// watching the DOM rather than polling; then reads the screen.
    public func waitFor(_ condition: String, timeout: Duration = .seconds(15)) async throws -> KioskScreen {
        let milliseconds = timeout.components.seconds * 1000
        let script = """
            new Promise((resolve, reject) => {
              const v = document.getElementById('verdict');
              const met = () => { try { return (\(condition)); } catch (e) { return false; } };
              if (met()) return resolve(true);
              const observer = new MutationObserver(() => { if (met()) { observer.disconnect(); resolve(true); } });
              observer.observe(document.body, { attributes: true, childList: true, subtree: true, characterData: true });
              setTimeout(() => { observer.disconnect(); reject(new Error('timed out waiting for: ' + \(JSON.string(condition).encoded()) +
                ' (outcome ' + v.dataset.outcome + ', seq ' + v.dataset.seq + ')')); }, \(milliseconds));
            })
            """
        try await evaluate(script, timeout: timeout + .seconds(5))
        return try await screen()
    }

    /// Waits until the page shows the journaled event `seq`.
    public func waitForSeq(_ seq: Int64, timeout: Duration = .seconds(15)) async throws -> KioskScreen {
        try await waitFor("v.dataset.seq === '\(seq)'", timeout: timeout)
    }

    public func waitForOutcome(_ outcome: String, timeout: Duration = .seconds(15)) async throws -> KioskScreen {
        try await waitFor("v.dataset.outcome === '\(outcome)'", timeout: timeout)
    }

    /// Marks the document the tab holds now, for `waitForNewDocument`.
    public func markDocument() async throws {
        try await evaluate("window.kioskHarnessMark = true")
    }

    /// Waits until the tab holds a document other than the one marked (the page loaded itself again), loaded; then
    /// reads the screen. A reload has no event a test can wait on across it: the old document's are gone with it.
    public func waitForNewDocument(timeout: Duration = .seconds(20)) async throws -> KioskScreen {
        let deadline = ContinuousClock.now + timeout
        let loaded = "window.kioskHarnessMark === undefined && document.readyState === 'complete' && document.getElementById('verdict') !== null"
        while ContinuousClock.now < deadline {
            // While the tab navigates, an evaluation may fail with its context: asked again.
            if (try? await evaluate(loaded, timeout: .seconds(5))) == .bool(true) { return try await screen() }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw BrowserError("the page did not load itself again within \(timeout)")
    }
}
