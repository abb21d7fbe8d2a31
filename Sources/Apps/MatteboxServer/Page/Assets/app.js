"use strict";
const token = document.querySelector('meta[name="mattebox-token"]').content;
const $ = (id) => document.getElementById(id);
let appStatus = null, cameraInfo = null, viewing = null;

async function api(method, path, body) {
  const response = await fetch(path, {
    method, headers: { "X-Mattebox-Token": token, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body) });
  const reply = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(reply.error && reply.error.message ? reply.error.message : (reply.error || response.statusText));
  return reply;
}

// The session: cameras, what can be delivered, the preview's mirroring and turn.
async function loadStatus() {
  appStatus = await api("GET", "/api/status");
  const select = $("camera");
  select.innerHTML = "";
  for (const camera of appStatus.cameras) {
    const option = new Option(`${camera.name} (${camera.position})`, camera.id);
    select.add(option);
  }
  select.value = appStatus.camera;
  cameraInfo = appStatus.cameras.find((c) => c.id === appStatus.camera);
  $("camera-name").textContent = cameraInfo ? cameraInfo.name : appStatus.camera;
  const preview = $("preview");
  preview.classList.toggle("mirrored", !!(cameraInfo && cameraInfo.mirroredPreview));
  preview.dataset.camera = appStatus.camera;
  preview.style.rotate = cameraInfo && cameraInfo.previewRotation ? `${cameraInfo.previewRotation}deg` : "";
  $("switch").hidden = appStatus.cameras.length < 2;
  $("depth-toggle").hidden = !appStatus.deliverable.depth;
  $("portrait-toggle").hidden = !appStatus.deliverable.portraitMatte;
  $("semantic-toggle").hidden = appStatus.deliverable.semanticMattes.length === 0;
  $("semantic-label").textContent = "Semantic mattes: " + appStatus.deliverable.semanticMattes.map((r) => r.replace(/^.*:/, "").replace(/matte$/i, "")).join(", ");
  $("mirror-toggle").hidden = !(cameraInfo && cameraInfo.position === "front");
  $("focus-hint").hidden = !(cameraInfo && cameraInfo.tapToFocus);
  const format = $("format");
  if (format.options.length === 0) for (const name of appStatus.formats) format.add(new Option(name, name));
  showSession(appStatus.session);
  await loadControls();
}

// Banners for interruptions (AVCam's), readiness for the shutter, thermal level and frame rate.
function showSession(session) {
  const banner = $("banner"), resume = $("resume");
  let text = null;
  resume.hidden = true;
  if (session.state === "interrupted") {
    if (session.interruption === "videoDeviceInUseByAnotherClient") {
      text = "The camera is in use by another app."; resume.hidden = false;
    } else if (session.interruption === "videoDeviceNotAvailable") {
      text = "The camera is unplugged or unavailable; waiting for it to come back.";
    } else if (session.interruption === "videoDeviceNotAvailableDueToSystemPressure") {
      text = "The camera is stopped: the system is too hot (system pressure " + session.pressure + ").";
    } else { text = "The camera is interrupted: " + session.interruption; }
  } else if (session.state === "stopped") { text = "The camera session stopped."; }
  banner.hidden = text === null;
  banner.dataset.reason = session.interruption || "";
  $("banner-text").textContent = text || "";
  // The shutter waits only when the photo queue's memory is spent (or the camera is busy): a press
  // returns once its frame is secured and the proxy written, and processing goes on behind it.
  const queue = session.queue || {};
  $("shutter").disabled = session.readiness !== "ready";
  $("shutter").dataset.readiness = session.readiness;
  $("shutter").title = queue.refusal || "Take a photo";
  $("queue").textContent = queue.photos ? `${queue.photos} processing` : "";
  $("queue").dataset.photos = queue.photos || 0;
  if (queue.refusal) $("result").textContent = "Wait: " + queue.refusal;
  $("thermal").textContent = session.pressure === "nominal" ? "" : "thermal: " + session.pressure;
  const record = $("record");
  record.classList.toggle("recording", !!session.recording);
  record.textContent = session.recording ? "■ Stop" : "● Rec";
  record.dataset.recording = session.recording ? "yes" : "no";
  record.disabled = session.state !== "running" && !session.recording;
  $("live").closest("label").dataset.inProgress = session.livePhotosInProgress || 0;
  if (session.framesPerSecond) $("fps").textContent = session.framesPerSecond.toFixed(0) + " fps";
}

function listen() {
  const events = new EventSource("/api/events");
  events.onmessage = (message) => {
    const event = JSON.parse(message.data);
    if (appStatus) appStatus.session = event.status;
    showSession(event.status);
    if (event.type === "willCapture") flash();
    // A proxy, a final still, a Live Photo's movie or a recording has been written: the library shows it.
    if (["proxyWritten", "didFinish", "didFinishProcessingLivePhotoMovie", "didFinishRecording"].includes(event.type)) loadLibrary();
    if (event.type === "didFinish" && event.detail) $("result").textContent = "Processing failed (the photo as taken is kept): " + event.detail;
    // The photo the result line names is final now: say so instead of "processing…".
    const shown = $("result").dataset.photo;
    if (event.type === "finalWritten" && shown && event.output && event.output.endsWith("/" + shown)) {
      $("result").textContent = $("result").textContent.replace(/processing…$/, "final written");
    }
    if (event.type === "didFinishRecording") $("result").textContent = `Movie ${event.output} (${event.detail})`;
    if (event.type === "didFinishProcessingLivePhotoMovie" && event.detail) $("result").textContent = "The Live Photo movie failed: " + event.detail;
    if (event.type === "runtimeError") $("result").textContent = "Camera error, recovering: " + event.detail;
    if (event.type === "cameraChanged" || event.type === "interruptionEnded") {
      $("preview").src = "/preview.mjpg?" + Date.now();
    }
  };
}

function flash() {
  const flash = $("flash");
  flash.classList.add("on");
  requestAnimationFrame(() => requestAnimationFrame(() => flash.classList.remove("on")));
}

// A press: the frame at the press is secured and the photo as taken written (the proxy); the
// mattes and HEIF packaging follow in the background, and the library shows the tile as processing.
async function shoot() {
  try {
    const photo = await api("POST", "/api/capture", {
      quality: $("quality").value, format: $("format").value,
      depth: $("depth").checked, portraitMatte: $("portrait").checked, semanticMattes: $("semantic").checked,
      mirrorFront: $("mirror").checked, live: $("live").checked });
    $("result").textContent = `${photo.id} ${photo.width}×${photo.height}, frame ${photo.frameSequence}, on disk in ${photo.pressToProxySeconds.toFixed(2)} s; processing…`;
    $("result").dataset.live = $("live").checked ? "yes" : "no";
    $("result").dataset.photo = photo.id;
    const last = $("last");
    last.src = `/api/library/${encodeURIComponent(photo.id)}/thumbnail.jpg?${Date.now()}`;
    last.hidden = false;
    await loadLibrary();
  } catch (error) {
    $("result").textContent = "No photo: " + error.message;
  }
}

async function switchCamera(id) {
  try {
    await api("POST", "/api/camera", { camera: id });
    await loadStatus();
  } catch (error) { $("result").textContent = error.message; }
}

// Manual controls, drawn from what the camera lists: sliders, switches, menus.
async function loadControls() {
  try { drawControls((await api("GET", "/api/controls")).controls); }
  catch (error) { $("controls").textContent = error.message; }
}

function drawControls(controls) {
  const box = $("controls");
  box.innerHTML = "";
  for (const control of controls) {
    if (control.readOnly || control.kind === "rectangle" || control.kind === "button" || control.kind === "other" || control.kind === "bitmask") continue;
    const row = document.createElement("div");
    row.className = "control" + (control.inactive ? " inactive" : "");
    row.dataset.control = control.name;
    const label = document.createElement("label");
    label.textContent = control.label;
    let input;
    if (control.kind === "boolean") {
      input = document.createElement("input");
      input.type = "checkbox";
      input.checked = control.value === 1;
      input.addEventListener("change", () => setControl(control.name, input.checked ? 1 : 0));
      label.prepend(input);
    } else if (control.kind === "menu" || control.kind === "integerMenu") {
      input = document.createElement("select");
      for (const item of control.menu) input.add(new Option(item.name, item.value));
      input.value = control.value;
      input.addEventListener("change", () => setControl(control.name, Number(input.value)));
      label.append(" ", input);
    } else {
      input = document.createElement("input");
      input.type = "range";
      input.min = control.minimum; input.max = control.maximum; input.step = control.step || 1;
      input.value = control.value;
      const value = document.createElement("span");
      value.className = "value";
      value.textContent = control.value;
      input.addEventListener("input", () => { value.textContent = input.value; });
      input.addEventListener("change", () => setControl(control.name, Number(input.value)));
      label.append(value, input);
    }
    input.name = control.name;
    input.dataset.testid = "control-" + control.name;
    input.disabled = control.inactive;
    row.append(label);
    box.append(row);
  }
}

async function setControl(name, value) {
  try { drawControls((await api("PUT", "/api/controls", { [name]: value })).controls); }
  catch (error) { $("result").textContent = error.message; await loadControls(); }
}

// Tap to focus and expose: the point in the frame's own coordinates (the preview may be mirrored or turned).
async function tap(event) {
  if (!cameraInfo || !cameraInfo.tapToFocus) return;
  const box = $("preview").getBoundingClientRect();
  let x = (event.clientX - box.left) / box.width, y = (event.clientY - box.top) / box.height;
  const reticle = $("reticle");
  reticle.style.left = (x * 100) + "%"; reticle.style.top = (y * 100) + "%"; reticle.hidden = false;
  setTimeout(() => { reticle.hidden = true; }, 1200);
  const turn = cameraInfo.previewRotation;
  if (turn === 90) [x, y] = [y, 1 - x]; else if (turn === 180) [x, y] = [1 - x, 1 - y]; else if (turn === 270) [x, y] = [1 - y, x];
  if (cameraInfo.mirroredPreview) x = 1 - x;
  try { drawControls((await api("POST", "/api/focus", { x, y })).controls); }
  catch (error) { $("result").textContent = error.message; }
}

// The library: newest first, thumbnails from the files' own, a viewer with the aux images as overlays.
// A movie's thumbnail is its first frame, drawn by the browser; a Live Photo is badged and plays its movie.
const hasMovie = (photo) => photo.kind === "movie" || !!photo.livePhotoMovie || !!photo.motionPhoto;
const movieURL = (photo) => `/api/library/${encodeURIComponent(photo.id)}/movie?${photo.bytes}`;
async function loadLibrary() {
  const { photos } = await api("GET", "/api/library");
  const grid = $("library");
  grid.innerHTML = "";
  for (const photo of photos) {
    const item = document.createElement("div");
    item.className = "item";
    item.dataset.photo = photo.id;
    item.dataset.state = photo.processing ? "processing" : "final";
    let picture;
    if (photo.kind === "movie") {
      picture = document.createElement("video");
      picture.muted = true;
      picture.preload = "metadata";
      picture.src = movieURL(photo);
    } else {
      picture = new Image();
      picture.src = `/api/library/${encodeURIComponent(photo.id)}/thumbnail.jpg?${photo.bytes}-${photo.modified}`;
      picture.alt = photo.id;
    }
    const name = document.createElement("div");
    name.textContent = photo.id;
    item.append(picture, name);
    if (photo.processing) {
      const badge = document.createElement("span");
      badge.className = "badge processing";
      badge.dataset.testid = "processing-badge";
      badge.textContent = "processing…";
      item.append(badge);
    }
    if (hasMovie(photo)) {
      const badge = document.createElement("span");
      badge.className = "badge live";
      badge.dataset.testid = "movie-badge";
      badge.textContent = photo.kind === "movie" ? `movie ${(photo.duration || 0).toFixed(1)} s` : "live";
      item.append(badge);
    }
    for (const role of photo.auxiliary) {
      const badge = document.createElement("span");
      badge.className = "badge";
      badge.textContent = role.replace(/^.*[:.]/, "");
      const source = photo.sources && photo.sources[role];
      if (source) {
        badge.title = source;
        badge.dataset.source = source;
      }
      item.append(badge);
    }
    item.addEventListener("click", () => openViewer(photo));
    grid.append(item);
  }
  await loadTrash();
}

function openViewer(photo) {
  viewing = photo;
  $("viewer").hidden = false;
  $("viewer-name").textContent = photo.id;
  $("download").href = `/api/library/${encodeURIComponent(photo.id)}/file`;
  const layers = $("viewer-layers");
  layers.innerHTML = "";
  const video = $("viewer-video");
  const show = (role, button) => {
    for (const other of layers.children) other.classList.remove("selected");
    button.classList.add("selected");
    $("portrait-control").hidden = role !== "portrait";
    if (role === "portrait") {
      video.pause();
      video.hidden = true;
      $("viewer-image").hidden = false;
      portraitFocus = null;
      portraitStart = true;
      renderPortrait();
      return;
    }
    const playing = role === "movie";
    $("viewer-image").hidden = playing;
    video.hidden = !playing;
    if (playing) {
      video.src = movieURL(photo);
      video.play().catch(() => {});
    } else {
      video.pause();
      video.removeAttribute("src");
      $("viewer-image").src = `/api/library/${encodeURIComponent(photo.id)}/overlay/${encodeURIComponent(role)}`;
      $("viewer-image").dataset.layer = role;
    }
  };
  const portrait = photo.kind !== "movie" && photo.auxiliary.some((role) => appStatus.portraitSources.includes(role));
  const roles = photo.kind === "movie" ? ["movie"] : ["primary", ...(portrait ? ["portrait"] : []), ...photo.auxiliary, ...(hasMovie(photo) ? ["movie"] : [])];
  for (const role of roles) {
    const button = document.createElement("button");
    button.textContent = role === "primary" ? "Photo" : role === "portrait" ? "Portrait" : role === "movie" ? (photo.kind === "movie" ? "Movie" : "Live") : role.replace(/^.*[:.]/, "");
    button.dataset.layer = role;
    button.addEventListener("click", () => show(role, button));
    layers.append(button);
  }
  show(roles[0], layers.firstChild);
}

// The Portrait control (Photos' Depth Control): the f-number on a log scale over the plugin's range,
// re-rendered on the server at screen size while the slider moves (one request at a time, the
// newest setting wins), tap to refocus, and a full-size copy saved beside the original.
// The first render of a photo leaves the f-number and focus to it (a Lens Blur photo's own, else the
// plugin's defaults); the control then starts where that render says it was made.
let portraitFocus = null, portraitBusy = false, portraitAgain = false, portraitStart = false;
// The f-number slider's range and starting point are the plugin's own (its descriptor, served as
// JSON): the slider runs from its widest to its smallest aperture, evenly in stops.
let apertureSpec = null;
async function loadApertureSpec() {
  if (apertureSpec) return;
  const { plugin } = await api("GET", "/api/plugins/portrait-effect/parameters");
  apertureSpec = plugin.parameters.find((parameter) => parameter.key === "aperture");
  $("aperture").value = sliderOf(apertureSpec.defaultValue);
}
const apertureOf = (value) => {
  const { minimum: widest, maximum: smallest } = apertureSpec;
  return Math.round(widest * Math.pow(smallest / widest, value / 100) * 10) / 10;
};
const sliderOf = (aperture) => {
  const { minimum: widest, maximum: smallest } = apertureSpec;
  return Math.round(100 * Math.log(aperture / widest) / Math.log(smallest / widest));
};
function portraitSettings() {
  const settings = { aperture: apertureOf(Number($("aperture").value)) };
  if (portraitFocus) settings.focus = `${portraitFocus.x.toFixed(3)},${portraitFocus.y.toFixed(3)}`;
  return settings;
}
async function renderPortrait() {
  if (!viewing) return;
  if (portraitBusy) { portraitAgain = true; return; }
  portraitBusy = true;
  try { await loadApertureSpec(); } catch (error) {
    $("portrait-status").textContent = error.message;
    portraitBusy = false;
    return;
  }
  const starting = portraitStart;
  portraitStart = false;
  const settings = portraitSettings();
  const size = Math.min(1280, Math.round(Math.max(window.innerWidth, 320) * (window.devicePixelRatio || 1)));
  const query = new URLSearchParams({ size });
  if (!starting) {
    $("aperture-value").textContent = `f/${settings.aperture.toFixed(1)}`;
    query.set("aperture", settings.aperture);
    if (settings.focus) query.set("focus", settings.focus);
  }
  try {
    const reply = await fetch(`/api/library/${encodeURIComponent(viewing.id)}/portrait.jpg?${query}`, { headers: { "X-Mattebox-Token": token } });
    if (!reply.ok) {
      const body = await reply.json().catch(() => ({}));
      throw new Error(body.error && body.error.message ? body.error.message : (body.error || reply.statusText));
    }
    if (starting) {
      // Where the render was made: the slider and the focus start there.
      const aperture = Number(reply.headers.get("X-Mattebox-Aperture"));
      if (aperture > 0) {
        $("aperture").value = sliderOf(aperture);
        settings.aperture = aperture;
      }
      const focus = (reply.headers.get("X-Mattebox-Focus") || "").split(",").map(Number);
      if (focus.length === 2 && focus.every((value) => value >= 0 && value <= 1)) {
        portraitFocus = { x: focus[0], y: focus[1] };
        settings.focus = `${focus[0].toFixed(3)},${focus[1].toFixed(3)}`;
      }
      $("aperture-value").textContent = `f/${settings.aperture.toFixed(1)}`;
    }
    const image = $("viewer-image");
    const old = image.src;
    image.src = URL.createObjectURL(await reply.blob());
    image.dataset.layer = "portrait";
    image.dataset.aperture = settings.aperture.toFixed(1);
    image.dataset.focus = settings.focus || "subject";
    if (old.startsWith("blob:")) URL.revokeObjectURL(old);
    $("portrait-status").textContent = "";
  } catch (error) { $("portrait-status").textContent = error.message; }
  portraitBusy = false;
  if (portraitAgain) { portraitAgain = false; renderPortrait(); }
}
async function savePortrait() {
  if (!viewing) return;
  try {
    const reply = await api("POST", `/api/library/${encodeURIComponent(viewing.id)}/portrait`, portraitSettings());
    $("portrait-status").textContent = `Saved as ${reply.id}`;
    await loadLibrary();
  } catch (error) { $("portrait-status").textContent = error.message; }
}
$("aperture").addEventListener("input", renderPortrait);
$("save-portrait").addEventListener("click", savePortrait);
$("viewer-image").addEventListener("click", (event) => {
  if ($("portrait-control").hidden) return;
  const box = event.currentTarget.getBoundingClientRect();
  portraitFocus = { x: (event.clientX - box.left) / box.width, y: (event.clientY - box.top) / box.height };
  renderPortrait();
});

async function trashViewed() {
  if (!viewing) return;
  try {
    await api("DELETE", `/api/library/${encodeURIComponent(viewing.id)}`);
    $("viewer").hidden = true;
    $("viewer-video").pause();
    viewing = null;
    await loadLibrary();
  } catch (error) { $("result").textContent = error.message; }
}

async function loadTrash() {
  const { photos } = await api("GET", "/api/trash");
  const list = $("trash");
  list.innerHTML = "";
  for (const photo of photos) {
    const item = document.createElement("div");
    item.className = "item";
    item.dataset.photo = photo.id;
    item.textContent = photo.id + " ";
    const restore = document.createElement("button");
    restore.textContent = "Restore";
    restore.dataset.testid = "restore";
    restore.addEventListener("click", async () => {
      try { await api("POST", `/api/trash/${encodeURIComponent(photo.id)}/restore`); await loadLibrary(); }
      catch (error) { $("result").textContent = error.message; }
    });
    item.append(restore);
    list.append(item);
  }
}

$("shutter").addEventListener("click", shoot);
// AVCam's record button: start, then stop; the timeline's events redraw it.
$("record").addEventListener("click", async () => {
  const recording = !!(appStatus && appStatus.session.recording);
  try {
    const reply = await api("POST", "/api/recording", { action: recording ? "stop" : "start", mirrorFront: $("mirror").checked });
    $("result").textContent = recording ? `Movie ${reply.path}, ${reply.frames} frames, ${reply.duration.toFixed(1)} s` : `Recording to ${reply.path}`;
  } catch (error) { $("result").textContent = error.message; }
});
// Live Photos: the pre-roll fills from the moment the toggle is on.
$("live").addEventListener("change", () => api("POST", "/api/live", { enabled: $("live").checked }).catch((e) => { $("result").textContent = e.message; $("live").checked = false; }));
$("camera").addEventListener("change", () => switchCamera($("camera").value));
$("switch").addEventListener("click", () => {
  const ids = appStatus.cameras.map((c) => c.id);
  switchCamera(ids[(ids.indexOf(appStatus.camera) + 1) % ids.length]);
});
$("resume").addEventListener("click", () => api("POST", "/api/session/resume").then(loadStatus).catch((e) => { $("result").textContent = e.message; }));
$("preview").addEventListener("click", tap);
$("refresh").addEventListener("click", loadLibrary);
$("delete").addEventListener("click", trashViewed);
$("close-viewer").addEventListener("click", () => { $("viewer").hidden = true; $("portrait-control").hidden = true; $("viewer-video").pause(); viewing = null; });
loadStatus().then(listen).then(loadLibrary).catch((error) => { $("result").textContent = error.message; });
