import Sentences

/// The kiosk page: one document, styles and script inline, nothing loaded from elsewhere (the station may be offline).
///
/// Everything the daemon sends is put on the page as text (`textContent`, never markup), cut to a length, and
/// stripped of control and bidirectional-override characters. The page's own words come in English and French.
public enum KioskPage {
    /// `words`: the page's own words in `language`. `version`: a digest of the document, which it carries
    /// (`data-page`) to compare with the one the bridge serves (`KioskPages`).
    public static func document(language: KioskLanguage, words: KioskWords, holdSeconds: Int,
                                theme: KioskTheme = .standard) -> (text: String, version: String) {
        var values = [
            "COLOURS": theme.styleRule, "LANG": htmlEscaped(language.rawValue), "HOLD": htmlEscaped(String(holdSeconds)),
            "IDLE": htmlEscaped(words.idle), "TITLE": htmlEscaped(words.title), "WORDS": words.scriptValue, "PAGE": "",
        ]
        // The digest of the document without it; filled again rather than searched, so that no sentence can stand in.
        let version = digest(filled(template, with: values))
        values["PAGE"] = version
        return (filled(template, with: values), version)
    }

    /// 64-bit FNV-1a, in hexadecimal: tells one page from another, and needs to resist no one.
    static func digest(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// `{{NAME}}` replaced by its value in one pass over the template: a value is never searched again, so a brand's
    /// sentence that holds `{{WORDS}}` stays those letters.
    static func filled(_ template: String, with values: [String: String]) -> String {
        var result = ""
        var rest = template[...]
        while let open = rest.firstRange(of: "{{") {
            result += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].firstRange(of: "}}"), let value = values[String(rest[open.upperBound..<close.lowerBound])] else {
                result += "{{"
                rest = rest[open.upperBound...]
                continue
            }
            result += value
            rest = rest[close.upperBound...]
        }
        return result + rest
    }

    /// Text made safe for an HTML element or a quoted attribute.
    static func htmlEscaped(_ text: String) -> String {
        text.replacingScalars(["&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;"])
    }

    private static let template = #"""
    <!doctype html>
    <html lang="{{LANG}}" data-hold="{{HOLD}}" data-page="{{PAGE}}">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>{{TITLE}}</title>
    <style>
    {{COLOURS}}
    * { box-sizing: border-box; }
    html, body { margin: 0; height: 100%; overflow: hidden; }
    body { font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif; color: var(--text); background: var(--idle);
           display: flex; align-items: center; justify-content: center; }
    body[data-tone="good"] { background: var(--good); }
    body[data-tone="identified"] { background: var(--identified); }
    body[data-tone="alert"] { background: var(--alert); }
    body[data-tone="neutral"] { background: var(--neutral); }
    body[data-tone="unavailable"] { background: var(--unavailable); }
    body[data-tone="offline"] { background: var(--offline); }
    main { width: 94vw; max-height: 100vh; text-align: center; }
    #verdict > * { margin: 0 auto 2.2vh; }
    #icon { font-size: min(16vh, 10rem); line-height: 1; font-weight: 700; }
    #message { font-size: min(5vw, 8vh); line-height: 1.18; font-weight: 700; }
    #verdict.long #message { font-size: min(3.8vw, 6vh); }
    #verdict.longer #message { font-size: min(3.1vw, 4.8vh); }
    .part { font-size: min(2.8vw, 4.4vh); line-height: 1.25; padding: 0.35em 0.8em; border-radius: 0.4em;
            background: rgba(0, 0, 0, 0.3); display: table; }
    .part[hidden] { display: none; }
    #theft { font-size: min(4.2vw, 6.6vh); background: var(--text); color: var(--alert); font-weight: 800; text-transform: uppercase;
             letter-spacing: 0.04em; border: 0.18em solid var(--accent); }
    body[data-tone="alert"] #icon { animation: pulse 1s steps(2, jump-none) infinite; }
    @keyframes pulse { 50% { opacity: 0.35; } }
    @media (prefers-reduced-motion: reduce) { body[data-tone="alert"] #icon { animation: none; } }
    #hint { font-size: min(2.4vw, 3.8vh); opacity: 0.85; }
    /* An opened seal the brand asks to trust less: the good screen with its warning, never the plain one. */
    #verdict[data-seal="opened-degraded"] #seal { background: var(--text); color: var(--good); font-weight: 800; }
    #verdict[data-seal="opened-degraded"] #seal::before { content: "\26A0\FE0E\00A0"; }
    #pp-warnings { grid-column: 1 / -1; margin: 0; padding: 0; list-style: none; display: grid; gap: 0.6vh; }
    #pp-warnings[hidden] { display: none; }
    #pp-warnings li { background: var(--text); color: var(--alert); font-weight: 800; padding: 0.2em 0.5em; border-radius: 0.3em; }
    #pp-warnings li::before { content: "\26A0\FE0E\00A0"; }
    body[data-panel="shown"] main { max-height: 100vh; overflow: hidden; }
    body[data-panel="shown"] #verdict > * { margin-bottom: 1.2vh; }
    body[data-panel="shown"] #icon { font-size: min(9vh, 6rem); }
    body[data-panel="shown"] #message { font-size: min(3.4vw, 5.2vh); }
    /* The verdict's long sizes are for a screen without the panel: beside it they push the certificate off the bottom. */
    body[data-panel="shown"] #verdict.long #message, body[data-panel="shown"] #verdict.longer #message { font-size: min(2.8vw, 4.2vh); }
    body[data-panel="shown"] #hint, body[data-panel="shown"] #product { display: none; }
    #passport { margin: 1.5vh auto 0; width: 90vw; padding: 1.6vh 2vw; border-radius: 0.5em; background: rgba(0, 0, 0, 0.32);
                text-align: left; display: grid; grid-template-columns: 1fr auto; gap: 0.8vh 3vw; font-size: min(2.2vw, 3.5vh);
                line-height: 1.25; }
    #passport[hidden] { display: none; }
    #passport p, #passport ol { margin: 0; }
    #pp-about { grid-column: 1 / -1; font-style: italic; }
    #pp-product { grid-column: 1 / -1; font-size: 1.35em; font-weight: 700; }
    #pp-facts { display: grid; gap: 0.8vh; align-content: start; }
    #pp-anchoring[data-anchoring="modified_after_anchoring"] { background: var(--text); color: var(--alert); font-weight: 800;
                                                               padding: 0.2em 0.5em; border-radius: 0.3em; }
    #pp-anchoring[data-anchoring="modified_after_anchoring"]::before { content: "\26A0\FE0E\00A0"; }
    #pp-history-label { margin-bottom: 0.3vh; font-weight: 700; }
    #pp-history { padding-left: 1.2em; }
    #pp-history li { margin-bottom: 0.3vh; }
    #pp-history .when { opacity: 0.8; margin-right: 0.6em; font-variant-numeric: tabular-nums; }
    #pp-certificate { display: grid; justify-items: center; gap: 0.6vh; max-width: 24vw; text-align: center; }
    #pp-code { width: min(24vh, 18vw); height: auto; background: #fff; padding: 0.4vh; border-radius: 0.2em; }
    #pp-code[hidden], #pp-certificate [hidden] { display: none; }
    </style>
    </head>
    <body data-tone="idle">
    <main>
    <div id="verdict" role="status" aria-live="assertive" aria-atomic="true" data-outcome="idle" data-seal="none" data-theft="none">
    <p id="icon" aria-hidden="true">&#9711;</p>
    <p id="theft" class="part" hidden></p>
    <p id="message">{{IDLE}}</p>
    <p id="product" class="part" hidden></p>
    <p id="seal" class="part" hidden></p>
    <p id="area" class="part" hidden></p>
    <p id="hint"></p>
    </div>
    <section id="passport" hidden data-scan="" aria-live="polite">
    <ul id="pp-warnings" hidden></ul>
    <p id="pp-about" hidden></p>
    <p id="pp-product"></p>
    <div id="pp-facts">
    <p id="pp-tier"></p>
    <p id="pp-anchoring" data-part="proof" data-anchoring=""></p>
    <div id="pp-history-part" data-part="history">
    <p id="pp-history-label"></p>
    <ol id="pp-history"></ol>
    <p id="pp-history-failed" hidden></p>
    </div>
    </div>
    <div id="pp-certificate" data-part="certificate">
    <img id="pp-code" alt="" hidden>
    <p id="pp-certificate-status"></p>
    <p id="pp-certificate-hint" hidden></p>
    </div>
    </section>
    </main>
    <script>
    "use strict";
    (function () {
      const words = {{WORDS}};
      // The check mark is a genuine chip's alone; a printed code (identified) names an item and proves nothing about the
      // object in hand: a colour and a sign of its own, never green, never the check mark.
      const ICONS = { idle: "\u25EF", good: "\u2713", identified: "\u2139\uFE0E", alert: "!", neutral: "i", unavailable: "\u21BB",
                      offline: "\u2715" };
      const DEGRADED_ICON = "\u26A0\uFE0E";
      // The calm screens each say their own thing: not our code, a product not found, nothing ever registered, a
      // certificate being written, a code or tag to read again (a read error too). DejaVu Sans draws each.
      const NEUTRAL_ICONS = { not_sealtrust: "\u2298", not_found: "?", never_registered: "\u2205", minting_in_progress: "\u2026",
                              unreadable_link: "\u21BA" };
      // A read error's sign says what its sentence does: read again, or not a SealTrust code or link (NoVerdictTexts).
      const NOT_OURS_READS = new Set(["no_ndef_application", "empty_ndef", "no_uri_record", "invalid_utf8", "unmapped_key", "too_long"]);
      const ALERT = new Set(["replay", "invalid_signature"]);
      // The station cannot check now: never to be mistaken for "not our code".
      const UNAVAILABLE = new Set(["failure", "too_many_calls"]);
      const root = document.documentElement;
      const holdMs = Math.min(Math.max(Number(root.dataset.hold) || 8, 1), 3600) * 1000;
      const byId = (id) => document.getElementById(id);
      const verdict = byId("verdict");
      let idleTimer = 0;
      let offline = false;
      // The newest scan the station announced: a verdict for an older one never replaces what is shown.
      let newestScan = "";
      // What is shown answers a scan live (a verdict, a read error): a late verdict never replaces it.
      let liveShown = false;
      // The time left on the screen for the next event shown, when a page opened during it; else null.
      let heldFor = null;

      // Text from outside: a string, cut to a length, without control or bidirectional-override characters.
      function clean(value, max) {
        if (typeof value !== "string") return "";
        return value.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g, " ").trim().slice(0, max);
      }

      function part(id, text) {
        const node = byId(id);
        node.textContent = text;
        node.hidden = text === "";
      }

      // outputs.md's table: the screen for a verdict and the kinds of warning its product's answer raised. A theft
      // report from anywhere is the theft alert; no product is shown under an alert.
      function screenFor(v, warningKinds) {
        const outcome = typeof v.outcome === "string" ? v.outcome : "failure";
        const theft = v.theft_reported === true || warningKinds.includes("theft_reported");
        const seal = v.seal && typeof v.seal === "object" ? v.seal : null;
        const degraded = seal !== null && seal.status === "opened" && seal.policy === "degrade";
        const tone = ALERT.has(outcome) || theft ? "alert" : outcome === "authentic" ? "good" : outcome === "identified" ? "identified"
          : UNAVAILABLE.has(outcome) ? "unavailable" : "neutral";
        const icon = tone === "good" && degraded ? DEGRADED_ICON
          : tone === "neutral" && Object.hasOwn(NEUTRAL_ICONS, outcome) ? NEUTRAL_ICONS[outcome] : ICONS[tone];
        const panel = tone !== "alert" && ((outcome === "authentic" && v.theft_reported === false) || outcome === "identified");
        return { tone: tone, icon: icon, theft: theft, degraded: degraded, panel: panel,
                 code: panel && outcome === "authentic" && !warningKinds.includes("certificate_not_valid") };
      }
      window.kioskScreenFor = screenFor;

      function show(tone, outcome, message, parts) {
        clearTimeout(idleTimer);
        liveShown = tone !== "idle" && tone !== "offline" && !parts.late && outcome !== "deferred";
        hidePassport();
        document.body.dataset.tone = tone;
        verdict.dataset.outcome = outcome;
        verdict.dataset.seal = parts.seal || "none";
        verdict.dataset.theft = parts.theft ? "reported" : "none";
        verdict.dataset.seq = parts.seq || "";
        verdict.dataset.scan = parts.scan || "";
        verdict.dataset.late = parts.late ? "true" : "false";
        byId("icon").textContent = parts.icon || ICONS[tone];
        byId("message").textContent = message;
        // Long sentences (a seal and a theft warning added) get smaller type, so that everything fits one screen.
        verdict.classList.toggle("long", message.length > 90 && message.length <= 170);
        verdict.classList.toggle("longer", message.length > 170);
        part("product", parts.product || "");
        part("seal", parts.sealText || "");
        part("theft", parts.theft ? words.theft : "");
        part("area", parts.area || "");
        byId("hint").textContent = parts.hint || "";
        if (parts.holdMs) idleTimer = setTimeout(showIdle, parts.holdMs);
        document.dispatchEvent(new CustomEvent("kiosk:shown", {
          detail: { outcome: outcome, seq: parts.seq || "", at: performance.timeOrigin + performance.now() }
        }));
      }

      function showIdle() {
        if (offline) return showOffline();
        show("idle", "idle", words.idle, { hint: words.idleHint });
      }

      function showOffline() {
        show("offline", "offline", words.offline, { hint: words.offlineHint });
      }

      function parse(event) {
        try {
          const value = JSON.parse(event.data);
          return value && typeof value === "object" ? value : null;
        } catch (error) {
          return null;
        }
      }

      // Each verdict and read error comes with how long it has left on the screen; 0: it is history (a replay after
      // a restart, events caught up after the daemon came back), never shown as fresh.
      function onHold(event) {
        const v = parse(event);
        if (v && Number.isInteger(v.remaining_ms) && v.remaining_ms >= 0) heldFor = Math.min(v.remaining_ms, holdMs);
      }

      function holdFor(most) {
        const remaining = heldFor === null ? most : Math.min(heldFor, most);
        heldFor = null;
        return remaining;
      }

      // The newest journaled event this page received, shown or not: where an operator (or a test) sees it is live.
      function received(event) {
        verdict.dataset.received = clean(event.lastEventId, 20);
      }

      function onScan(event) {
        received(event);
        const v = parse(event);
        newestScan = v ? clean(v.scan_id, 128) : "";
        showIdle();
      }

      function onVerdict(event) {
        received(event);
        const v = parse(event);
        const hold = holdFor(holdMs);
        if (!v || hold <= 0) return;
        const scanID = clean(v.scan_id, 128);
        // A late verdict (a scan deferred through an outage, checked now) is about an earlier scan, never the item in
        // hand: it shows on an idle screen or over a deferred or late one, marked as such, never over a live answer.
        const late = v.late === true;
        if (late ? liveShown : newestScan !== "" && scanID !== newestScan) return;
        const outcome = clean(v.outcome, 40) || "failure";
        const screen = screenFor(v, []);
        const seal = v.seal && typeof v.seal === "object" ? v.seal : null;
        const status = seal && (seal.status === "intact" || seal.status === "opened") ? seal.status : "";
        const degraded = screen.degraded;
        const product = [clean(v.product_name, 120), clean(v.brand, 80)].filter((text) => text !== "").join(" \u2014 ");
        let area = "";
        if (outcome === "never_registered" && v.scan_area && typeof v.scan_area === "object") {
          const place = [clean(v.scan_area.city, 80), clean(v.scan_area.country, 80)].filter((text) => text !== "").join(", ");
          if (place !== "") area = words.scanArea + place;
        }
        show(screen.tone, outcome, clean(v.message, 600), {
          seq: clean(event.lastEventId, 20), scan: scanID, product: product, theft: screen.theft, area: area, icon: screen.icon,
          seal: status === "" ? "none" : degraded ? "opened-degraded" : status,
          // An intact seal is the daemon's sentence's to say: a label under it said it twice.
          sealText: degraded ? words.sealOpenedDegraded : status === "opened" ? words.sealOpened : "",
          hint: late ? words.late : "", late: late,
          holdMs: hold
        });
        // The product, under `authentic` without a theft report and under `identified` only: never under an alert,
        // nor under a late verdict (the item is no longer in hand).
        if (scanID !== "" && screen.panel && !late) {
          passport.dataset.verdict = outcome;
          loadPassport(scanID, 0, false);
        }
      }

      // A theft report the product's answer raised: the screen becomes the theft alert, and no product is shown.
      function raiseTheft() {
        hidePassport();
        document.body.dataset.tone = "alert";
        verdict.dataset.theft = "reported";
        byId("icon").textContent = ICONS.alert;
        part("theft", words.theft);
        document.dispatchEvent(new CustomEvent("kiosk:shown", {
          detail: { outcome: verdict.dataset.outcome, seq: verdict.dataset.seq, at: performance.timeOrigin + performance.now() }
        }));
      }

      const passport = byId("passport");
      // The scan whose product the panel is for; "" when none is wanted.
      let wantedScan = "";

      function hidePassport() {
        wantedScan = "";
        passport.hidden = true;
        passport.dataset.scan = "";
        delete document.body.dataset.panel;
        byId("pp-code").removeAttribute("src");
      }

      // `retried`: the product was asked again after the API's wait; it is not asked a third time.
      function loadPassport(scanID, attempt, retried) {
        wantedScan = scanID;
        fetch("/passport?scan_id=" + encodeURIComponent(scanID), { cache: "no-store" }).then(function (response) {
          // The daemon busy or slow: asked again while the verdict is on the screen.
          if ((response.status === 503 || response.status === 504) && attempt < 3) {
            setTimeout(function () { if (wantedScan === scanID) loadPassport(scanID, attempt + 1, retried); }, 1500);
            return null;
          }
          return response.ok ? response.json() : null;
        }).then(function (answer) {
          if (!answer || typeof answer !== "object" || wantedScan !== scanID) return;
          showPassport(scanID, answer);
          // Parts the API refused for a while: asked once more when the wait is over, if the verdict is still shown.
          const wait = retried ? null : waitFor(answer);
          if (wait !== null) {
            setTimeout(function () { if (wantedScan === scanID) loadPassport(scanID, 0, true); }, Math.min(wait * 1000 + 500, holdMs));
          }
        }).catch(function () {});
      }

      // The longest wait the API asked for, in seconds, of the answer or its parts; null when none was refused for a while.
      function waitFor(p) {
        let longest = null;
        for (const part of [p, p.proof, p.certificate, p.history]) {
          if (!part || typeof part !== "object" || part.outcome !== "too_many_calls") continue;
          const wait = Number.isInteger(part.retry_after_s) ? Math.min(Math.max(part.retry_after_s, 0), 3600) : 60;
          longest = longest === null ? wait : Math.max(longest, wait);
        }
        return longest;
      }

      // A part the daemon could not read carries its outcome and the API's error in place of its fields.
      function failedPart(value) {
        return value !== null && typeof value === "object" && (typeof value.outcome === "string" || Object.hasOwn(value, "error"));
      }

      // One line for a part: its sentence from the daemon, nothing else when it failed. The sentence of a part that
      // could not be read for now says only "this part": `label` says which.
      function sentence(node, value, label) {
        const text = value && typeof value === "object" ? clean(value.message, 300) : "";
        node.textContent = text !== "" && label && failedPart(value) && value.outcome !== "not_found" ? label + text : text;
        node.hidden = node.textContent === "";
      }

      function showPassport(scanID, p) {
        const failed = failedPart(p);
        // What the station raised about the item comes first, each as a warning; a theft report is the alert itself.
        const warnings = Array.isArray(p.warnings) ? p.warnings.filter((w) => w && typeof w === "object") : [];
        const kinds = warnings.map((w) => clean(w.kind, 60));
        const screen = screenFor({ outcome: passport.dataset.verdict, theft_reported: false }, kinds);
        if (screen.theft) return raiseTheft();
        const list = byId("pp-warnings");
        list.replaceChildren();
        // A modification after anchoring is the proof's own line, shown there as a warning: not said twice.
        for (const warning of warnings.slice(0, 8)) {
          if (warning.kind === "modified_after_anchoring") continue;
          const item = document.createElement("li");
          item.textContent = clean(warning.message, 300);
          item.dataset.kind = clean(warning.kind, 60);
          if (item.textContent !== "") list.append(item);
        }
        list.hidden = list.childElementCount === 0;
        // A printed code names an item; a buyer must not take its record for proof about the object in hand. The
        // station's warning says so when it came; else the page's own words.
        const about = byId("pp-about");
        about.textContent = passport.dataset.verdict === "identified" && !kinds.includes("named_item_only") ? words.aboutNamedItem : "";
        about.hidden = about.textContent === "";
        const name = [clean(p.product_name, 120), clean(p.brand, 80)].filter((text) => text !== "").join(" \u2014 ");
        const model = p.fields && typeof p.fields === "object" ? clean(p.fields.model, 80) : "";
        byId("pp-product").textContent = failed ? clean(p.message, 300)
          : model !== "" && model !== clean(p.product_name, 120) ? name + " \u00b7 " + model : name;
        const tier = clean(p.access_tier, 40);
        const tierNode = byId("pp-tier");
        tierNode.textContent = tier !== "" && !failed ? words.tierServed + (Object.hasOwn(words.tiers, tier) ? words.tiers[tier] : tier) : "";
        tierNode.hidden = tierNode.textContent === "";
        const proof = p.proof && typeof p.proof === "object" ? p.proof : null;
        const anchoring = byId("pp-anchoring");
        sentence(anchoring, proof, words.parts.proof);
        anchoring.dataset.anchoring = proof && !failedPart(proof) ? clean(proof.anchoring, 40) : proof ? "unavailable" : "";
        const certificate = p.certificate && typeof p.certificate === "object" ? p.certificate : null;
        // A certificate to keep only for a genuine chip's object, and only while valid: never under a printed code.
        const readable = screen.code && certificate !== null && !failedPart(certificate) && typeof certificate.pdf_url === "string";
        sentence(byId("pp-certificate-status"), certificate, words.parts.certificate);
        const code = byId("pp-code");
        code.alt = words.certificateCode;
        if (readable) code.src = "/certificate.svg?scan_id=" + encodeURIComponent(scanID); else code.removeAttribute("src");
        code.hidden = !readable;
        byId("pp-certificate-hint").textContent = words.certificateHint;
        byId("pp-certificate-hint").hidden = !readable;
        byId("pp-certificate").hidden = certificate === null;
        const history = byId("pp-history");
        history.replaceChildren();
        const historyFailed = byId("pp-history-failed");
        sentence(historyFailed, failedPart(p.history) ? p.history : null, words.parts.history);
        if (Array.isArray(p.history)) {
          for (const entry of p.history.slice(0, 5)) {
            if (!entry || typeof entry !== "object") continue;
            const item = document.createElement("li");
            const when = document.createElement("span");
            when.className = "when";
            when.textContent = clean(entry.at, 40).slice(0, 10);
            item.append(when, clean(entry.message, 200));
            item.dataset.kind = clean(entry.kind, 60);
            history.append(item);
          }
        }
        history.hidden = history.childElementCount === 0;
        byId("pp-history-label").textContent = words.historyLabel;
        byId("pp-history-label").hidden = history.hidden;
        byId("pp-history-part").hidden = history.hidden && historyFailed.hidden;
        passport.dataset.scan = scanID;
        passport.hidden = false;
        document.body.dataset.panel = "shown";
        document.dispatchEvent(new CustomEvent("kiosk:passport", {
          detail: { scanID: scanID, at: performance.timeOrigin + performance.now() }
        }));
      }

      function onReadError(event) {
        received(event);
        const v = parse(event);
        const hold = holdFor(Math.min(holdMs, 4000));
        if (!v || hold <= 0) return;
        // The daemon's sentence says what to do (hold still, scan again, or nothing to do): no hint repeats or belies it.
        const icon = NOT_OURS_READS.has(v.reason) ? NEUTRAL_ICONS.not_sealtrust : NEUTRAL_ICONS.unreadable_link;
        show("neutral", "read_error", clean(v.message, 300), { seq: clean(event.lastEventId, 20), icon: icon, holdMs: hold });
      }

      function onStation(event) {
        const v = parse(event);
        if (!v) return;
        // The bridge follows the daemon's language: a page in another one loads itself again; so does a page other
        // than the one the bridge serves now (a kiosk restarted with new words or colours).
        if ((v.lang === "en" || v.lang === "fr") && v.lang !== root.lang) return location.reload();
        if (typeof v.page === "string" && /^[0-9a-f]{16}$/.test(v.page) && v.page !== root.dataset.page) return location.reload();
        document.body.dataset.station = v.state === "online" ? "online" : "offline";
        if (v.state === "offline") {
          offline = true;
          showOffline();
        } else if (v.state === "online" && offline) {
          offline = false;
          showIdle();
        }
      }

      function connect() {
        // A lane's screen (`/?lane=NAME`) asks for that lane's events only.
        const lane = new URLSearchParams(location.search).get("lane");
        const source = new EventSource(lane === null ? "/events" : "/events?lane=" + encodeURIComponent(lane));
        source.addEventListener("verdict", onVerdict);
        source.addEventListener("read_error", onReadError);
        source.addEventListener("scan", onScan);
        source.addEventListener("station", onStation);
        source.addEventListener("hold", onHold);
        source.onerror = function () {
          offline = true;
          document.body.dataset.station = "offline";
          showOffline();
          // A browser gives up on a stream the server refused; the page does not.
          if (source.readyState === EventSource.CLOSED) setTimeout(connect, 2000);
        };
      }

      showIdle();
      connect();
    })();
    </script>
    </body>
    </html>
    """#
}
