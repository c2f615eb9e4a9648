import Foundation
import JSONCore

/// What the page's product panel (`#passport`) shows, as a buyer reads it.
public struct ProductPanel: Sendable, CustomStringConvertible {
    public let shown: Bool
    /// Under `identified`: that the record is the named item's, not the object's in hand.
    public let about: String
    public let scanID: String
    public let product: String
    public let tier: String
    /// `data-anchoring`: the proof's state, `unavailable` when the proof could not be read.
    public let anchoring: String
    public let anchoringText: String
    /// The anchoring line stands out as a warning (its own background and sign), as `modified_after_anchoring` must.
    public let anchoringWarning: Bool
    public let certificate: String
    public let certificateHint: String
    public let hasCode: Bool
    public let history: [String]
    /// The words above the history's entries.
    public let historyLabel: String
    /// The history's sentence alone, when the daemon could not read it.
    public let historyFailure: String
    /// The station's warnings about the item, first in the panel, each as the buyer reads it, and their kinds.
    public let warnings: [String]
    public let warningKinds: [String]
    /// Every word on the page.
    public let pageText: String
    /// The verdict and the panel fit the window: nothing a buyer should read is cut off at its bottom or side.
    public let fitsTheScreen: Bool

    init(_ json: JSON) {
        func text(_ key: String) -> String { json[key]?.stringValue ?? "" }
        shown = json["shown"] == .bool(true)
        about = text("about")
        scanID = text("scan")
        product = text("product")
        tier = text("tier")
        anchoring = text("anchoring")
        anchoringText = text("anchoringText")
        anchoringWarning = json["warning"] == .bool(true)
        certificate = text("certificate")
        certificateHint = text("hint")
        hasCode = json["code"] == .bool(true)
        history = json["history"]?.arrayValue?.compactMap(\.stringValue) ?? []
        historyLabel = text("historyLabel")
        historyFailure = text("historyFailure")
        pageText = text("page")
        warnings = json["warnings"]?.arrayValue?.compactMap(\.stringValue) ?? []
        warningKinds = json["warningKinds"]?.arrayValue?.compactMap(\.stringValue) ?? []
        fitsTheScreen = json["fits"] == .bool(true)
    }

    public var description: String {
        "panel(shown: \(shown), scan: \(scanID), product: \(product), tier: \(tier), anchoring: \(anchoring) \(anchoringText.debugDescription)"
            + "\(anchoringWarning ? " (warning)" : ""), certificate: \(certificate.debugDescription), code: \(hasCode), "
            + "history: \(historyLabel.debugDescription) \(history) \(historyFailure.debugDescription), warnings: \(warningKinds)"
            + "\(fitsTheScreen ? "" : ", overflows the screen"))"
    }

    static let reader = """
        (() => {
          const p = document.getElementById('passport');
          const t = (id) => { const n = document.getElementById(id); return n.checkVisibility() ? n.textContent : ''; };
          const a = document.getElementById('pp-anchoring');
          return { shown: !p.hidden, scan: p.dataset.scan, about: t('pp-about'), product: t('pp-product'), tier: t('pp-tier'),
                   anchoring: a.dataset.anchoring, anchoringText: t('pp-anchoring'),
                   warning: getComputedStyle(a).backgroundColor !== 'rgba(0, 0, 0, 0)' && getComputedStyle(a, '::before').content.includes('\\u26A0'),
                   certificate: t('pp-certificate-status'), hint: t('pp-certificate-hint'),
                   code: !document.getElementById('pp-code').hidden,
                   history: Array.from(document.querySelectorAll('#pp-history li'), (li) => li.textContent),
                   historyLabel: t('pp-history-label'), historyFailure: t('pp-history-failed'),
                   warnings: Array.from(document.querySelectorAll('#pp-warnings li'), (li) => li.checkVisibility() ? li.textContent : ''),
                   warningKinds: Array.from(document.querySelectorAll('#pp-warnings li'), (li) => li.dataset.kind),
                   page: document.body.innerText,
                   fits: (() => { const m = document.querySelector('main');
                                  return m.scrollHeight <= window.innerHeight && m.scrollWidth <= window.innerWidth; })() };
        })()
        """
}

extension BrowserPage {
    public func productPanel() async throws -> ProductPanel {
        ProductPanel(try await evaluate(ProductPanel.reader))
    }

    /// Waits until the panel shows the product of `scanID`, its certificate's code loaded when it has one: on the
    /// page's mutations and on the code's `load`, which changes nothing in the DOM.
    public func waitForProductPanel(scanID: String, timeout: Duration = .seconds(15)) async throws -> ProductPanel {
        let milliseconds = timeout.components.seconds * 1000
        try await evaluate("""
            new Promise((resolve, reject) => {
              const p = document.getElementById('passport'), c = document.getElementById('pp-code');
              const met = () => !p.hidden && p.dataset.scan === '\(scanID)' && (c.hidden || (c.complete && c.getAttribute('src') !== null));
              if (met()) return resolve(true);
              const check = () => { if (met()) { observer.disconnect(); c.removeEventListener('load', check); resolve(true); } };
              const observer = new MutationObserver(check);
              observer.observe(document.body, { attributes: true, childList: true, subtree: true, characterData: true });
              c.addEventListener('load', check);
              setTimeout(() => { observer.disconnect(); reject(new Error('no product panel for \(scanID): shown for "' + p.dataset.scan + '"')); },
                         \(milliseconds));
            })
            """, timeout: timeout + .seconds(5))
        return try await productPanel()
    }

    /// From the beginning of the page: the scans whose product the panel has shown, in order.
    public func recordProductPanels() async throws {
        try await evaluate("window.productPanels = []; document.addEventListener('kiosk:passport', (e) => window.productPanels.push(e.detail.scanID)); true")
    }

    public func productPanelsShown() async throws -> [String] {
        try await evaluate("window.productPanels").arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// The certificate's code as the page draws it, in grey levels (one byte a pixel, `side` by `side`).
    public func certificateCodePixels(side: Int = 480) async throws -> [UInt8] {
        let base64 = try await evaluate("""
            (() => {
              const img = document.getElementById('pp-code'), canvas = document.createElement('canvas');
              canvas.width = canvas.height = \(side);
              const g = canvas.getContext('2d');
              g.fillStyle = '#fff'; g.fillRect(0, 0, \(side), \(side));
              g.drawImage(img, 0, 0, \(side), \(side));
              const rgba = g.getImageData(0, 0, \(side), \(side)).data;
              let grey = '';
              for (let i = 0; i < rgba.length; i += 4) grey += String.fromCharCode(Math.round((rgba[i] + rgba[i + 1] + rgba[i + 2]) / 3));
              return btoa(grey);
            })()
            """).stringValue ?? ""
        return Array(Data(base64Encoded: base64) ?? Data())
    }
}
