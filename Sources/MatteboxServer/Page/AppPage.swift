/// The camera app's one page: plain HTML, CSS and JavaScript served from the
/// binary (no build step), laid out for a phone's browser as well as a desktop.
/// The script is in `AppScript.swift`, the style in `AppStyle.swift`.
enum AppPage {
    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="mattebox-token" content="{{TOKEN}}">
        <title>Mattebox</title>
        <link rel="stylesheet" href="/app.css">
        <link rel="icon" href="data:,">
        </head>
        <body>
        <header>
          <strong>Mattebox</strong>
          <span id="camera-name"></span>
          <span id="fps" data-testid="fps"></span>
          <span id="thermal" data-testid="thermal"></span>
        </header>
        <div id="banner" data-testid="banner" hidden>
          <span id="banner-text"></span>
          <button id="resume" data-testid="resume" hidden>Resume</button>
        </div>
        <main>
          <section id="viewfinder">
            <div id="frame">
              <img id="preview" data-testid="preview" alt="live preview" src="/preview.mjpg">
              <div id="flash"></div>
              <div id="reticle" hidden></div>
            </div>
            <div id="bar">
              <button id="switch" data-testid="switch-camera" title="Switch camera">⟲</button>
              <button id="shutter" data-testid="shutter" title="Take a photo" disabled></button>
              <button id="record" data-testid="record" title="Record a movie">● Rec</button>
              <img id="last" data-testid="last-photo" alt="" hidden>
            </div>
            <p id="result" data-testid="result"></p>
          </section>
          <section id="settings">
            <h2>Photo</h2>
            <label>Camera <select id="camera" data-testid="camera"></select></label>
            <label>Quality <select id="quality" data-testid="quality">
              <option value="speed">Speed</option><option value="balanced" selected>Balanced</option><option value="quality">Quality</option>
            </select></label>
            <label>Format <select id="format" data-testid="format"></select></label>
            <label id="depth-toggle" hidden><input type="checkbox" id="depth" checked> Depth</label>
            <label id="portrait-toggle" hidden><input type="checkbox" id="portrait" data-testid="portrait" checked> Portrait matte</label>
            <label id="semantic-toggle" hidden><input type="checkbox" id="semantic" checked> <span id="semantic-label">Semantic mattes</span></label>
            <label><input type="checkbox" id="live" data-testid="live"> Live Photo</label>
            <label id="mirror-toggle" hidden><input type="checkbox" id="mirror"> Mirror front photos</label>
            <h2>Camera controls</h2>
            <p id="focus-hint" hidden>Tap the picture to focus and expose there.</p>
            <div id="controls" data-testid="controls"></div>
          </section>
        </main>
        <section id="library-section">
          <h2>Library <button id="refresh" title="Refresh">↻</button></h2>
          <div id="library" data-testid="library"></div>
          <div id="viewer" data-testid="viewer" hidden>
            <div id="viewer-bar">
              <strong id="viewer-name"></strong>
              <span id="viewer-layers"></span>
              <a id="download" data-testid="download">Download</a>
              <button id="delete" data-testid="delete">Move to trash</button>
              <button id="close-viewer">Close</button>
            </div>
            <div id="portrait-control" data-testid="portrait-control" hidden>
              <label>Depth <input id="aperture" data-testid="aperture" type="range" min="0" max="100" step="1" value="48">
                <span id="aperture-value" data-testid="aperture-value">f/4.5</span></label>
              <span>Tap the photo to refocus.</span>
              <button id="save-portrait" data-testid="save-portrait">Save a copy</button>
              <span id="portrait-status" data-testid="portrait-status"></span>
            </div>
            <img id="viewer-image" data-testid="viewer-image" alt="">
            <video id="viewer-video" data-testid="viewer-video" controls muted loop playsinline hidden></video>
          </div>
          <h2>Trash</h2>
          <div id="trash" data-testid="trash"></div>
        </section>
        <script src="/app.js"></script>
        </body>
        </html>
        """#
}
