// Running cv::dnn networks in this process, or in a batch's inference process
// over a Unix socket. The wire format is little-endian and private to one
// build of Mattebox (the workers and the inference process are the same
// binary): a request is "MBXI", the model path, its layout, the output names and the
// input blob; the answer is a status, then an error message or the output
// blobs. A blob is its dimension count, each dimension, and float32 samples.
#include "network.hpp"
#include "bridge.hpp"
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <chrono>
#include <sys/socket.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>

namespace mbx {

namespace {

std::atomic<int> networksLoaded{0};

/// The loaded networks of a process, by file and layout.
using Networks = std::map<std::pair<std::string, NetworkLayout>, cv::dnn::Net>;

/// A network loaded from an ONNX file, or a Failure naming the file.
cv::dnn::Net load(const std::string &path, NetworkLayout layout) {
    cv::dnn::Net net;
    try {
        net = cv::dnn::readNetFromONNX(path);
    } catch (const cv::Exception &exception) {
        throw Failure{path + ": cannot load the model: " + exception.err};
    }
    if (net.empty()) throw Failure{path + ": cannot load the model"};
    net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
    net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
    net.enableFusion(layout == NetworkLayout::fused);
    networksLoaded++;
    return net;
}

std::vector<cv::Mat> forward(cv::dnn::Net &net, const std::string &path, const cv::Mat &blob,
                             const std::vector<std::string> &outputs, const char *what) {
    std::vector<cv::Mat> results;
    try {
        net.setInput(blob);
        if (outputs.empty()) {
            results.push_back(net.forward().clone());
        } else {
            net.forward(results, std::vector<cv::String>(outputs.begin(), outputs.end()));
        }
    } catch (const cv::Exception &exception) {
        throw Failure{path + ": " + what + " did not run: " + exception.err};
    }
    return results;
}

/// The socket is gone (the inference process ended, or never listened).
struct Broken {
    std::string reason;
    int code = 0; // errno, when a call failed
};

void writeAll(int fd, const void *data, size_t size) {
    const char *at = static_cast<const char *>(data);
    while (size > 0) {
        ssize_t sent = ::send(fd, at, size, MSG_NOSIGNAL);
        if (sent < 0 && errno == EINTR) continue;
        if (sent <= 0) throw Broken{std::string("cannot send: ") + std::strerror(errno)};
        at += sent;
        size -= size_t(sent);
    }
}

void readAll(int fd, void *data, size_t size) {
    char *at = static_cast<char *>(data);
    while (size > 0) {
        ssize_t got = ::recv(fd, at, size, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got == 0) throw Broken{"closed the connection"};
        if (got < 0) throw Broken{std::string("cannot receive: ") + std::strerror(errno)};
        at += got;
        size -= size_t(got);
    }
}

void writeU32(int fd, uint32_t value) { writeAll(fd, &value, 4); }

uint32_t readU32(int fd) {
    uint32_t value = 0;
    readAll(fd, &value, 4);
    return value;
}

void writeString(int fd, const std::string &text) {
    writeU32(fd, uint32_t(text.size()));
    writeAll(fd, text.data(), text.size());
}

std::string readString(int fd) {
    const uint32_t size = readU32(fd);
    if (size > 1 << 16) throw Broken{"sent a string of " + std::to_string(size) + " bytes"};
    std::string text(size, '\0');
    readAll(fd, text.data(), size);
    return text;
}

void writeBlob(int fd, const cv::Mat &blob) {
    cv::Mat floats;
    blob.convertTo(floats, CV_32F);
    if (!floats.isContinuous()) floats = floats.clone();
    writeU32(fd, uint32_t(floats.dims));
    for (int i = 0; i < floats.dims; i++) writeU32(fd, uint32_t(floats.size[i]));
    writeAll(fd, floats.data, floats.total() * sizeof(float));
}

cv::Mat readBlob(int fd) {
    const uint32_t dims = readU32(fd);
    if (dims == 0 || dims > 8) throw Broken{"sent a blob of " + std::to_string(dims) + " dimensions"};
    std::vector<int> sizes(dims);
    size_t total = 1;
    for (auto &size : sizes) {
        const uint32_t value = readU32(fd);
        if (value == 0 || value > (1u << 20)) throw Broken{"sent a blob dimension of " + std::to_string(value)};
        size = int(value);
        total *= value;
        if (total > (size_t(1) << 28)) throw Broken{"sent a blob too large to be a model's input or output"};
    }
    cv::Mat blob(int(dims), sizes.data(), CV_32F);
    readAll(fd, blob.data, total * sizeof(float));
    return blob;
}

constexpr uint32_t requestMagic = 0x4958424d; // "MBXI"

/// The network for `path` and `layout` in `networks`, loaded on first use.
cv::dnn::Net &loaded(Networks &networks, const std::string &path, NetworkLayout layout) {
    auto found = networks.find({path, layout});
    if (found == networks.end()) found = networks.emplace(std::make_pair(path, layout), load(path, layout)).first;
    return found->second;
}

/// This thread's connection to the inference process (one request at a time on it).
struct Connection {
    int fd = -1;
    ~Connection() {
        if (fd >= 0) ::close(fd);
    }
    void drop() {
        if (fd >= 0) ::close(fd);
        fd = -1;
    }
};

int connectTo(const std::string &socketPath) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (socketPath.size() >= sizeof(address.sun_path)) throw Broken{"has a socket path too long for Unix sockets"};
    std::strncpy(address.sun_path, socketPath.c_str(), sizeof(address.sun_path) - 1);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) throw Broken{std::string("cannot open a socket: ") + std::strerror(errno)};
    if (::connect(fd, reinterpret_cast<sockaddr *>(&address), sizeof(address)) != 0) {
        const int code = errno;
        ::close(fd);
        throw Broken{std::string("cannot be reached: ") + std::strerror(code), code};
    }
    return fd;
}

std::vector<cv::Mat> runRemotely(const std::string &socketPath, const std::string &path, const cv::Mat &blob,
                                 const std::vector<std::string> &outputs, const char *what, NetworkLayout layout) {
    thread_local Connection connection;
    try {
        // The batch starts the inference process again at once when it ended:
        // a new connection waits up to 30 s for it to listen.
        for (int tries = 0; connection.fd < 0; tries++) {
            try {
                connection.fd = connectTo(socketPath);
            } catch (const Broken &broken) {
                if (tries >= 1500 || (broken.code != ENOENT && broken.code != ECONNREFUSED)) throw;
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
            }
        }
        writeU32(connection.fd, requestMagic);
        writeString(connection.fd, path);
        writeU32(connection.fd, uint32_t(layout));
        writeU32(connection.fd, uint32_t(outputs.size()));
        for (const auto &name : outputs) writeString(connection.fd, name);
        writeBlob(connection.fd, blob);
        if (readU32(connection.fd) != 0) throw Failure{readString(connection.fd)};
        const uint32_t count = readU32(connection.fd);
        if (count > 64) throw Broken{"answered with " + std::to_string(count) + " outputs"};
        std::vector<cv::Mat> results;
        for (uint32_t i = 0; i < count; i++) results.push_back(readBlob(connection.fd));
        return results;
    } catch (const Broken &broken) {
        connection.drop();
        throw Failure{path + ": " + what + " could not run: the batch's inference process (" + socketPath + ") " +
                      broken.reason};
    }
}

/// One connection of the inference process: requests until the worker closes it.
void serveConnection(int fd, std::mutex &lock, Networks &networks) {
    try {
        for (;;) {
            uint32_t magic = 0;
            try {
                magic = readU32(fd);
            } catch (const Broken &) {
                break; // the worker is done (or gone)
            }
            if (magic != requestMagic) break;
            const std::string path = readString(fd);
            const uint32_t layoutValue = readU32(fd);
            if (layoutValue > uint32_t(NetworkLayout::unfused)) break;
            const auto layout = NetworkLayout(layoutValue);
            const uint32_t outputCount = readU32(fd);
            if (outputCount > 64) break; // checked before anything is allocated for them
            std::vector<std::string> outputs(outputCount);
            for (auto &name : outputs) name = readString(fd);
            const cv::Mat blob = readBlob(fd);
            std::vector<cv::Mat> results;
            static std::atomic<int> served{0};
            // A fault switch for the tests: the process dies at this request, as a crash in cv::dnn would.
            if (const char *abortAt = std::getenv("MATTEBOX_INFERENCE_ABORT_AT"); abortAt && ++served == std::atoi(abortAt))
                std::abort();
            std::string failure;
            {
                std::lock_guard<std::mutex> guard(lock);
                try {
                    if (path.empty()) { // a count request: how many networks this process holds
                        results.push_back(cv::Mat(1, 1, CV_32F, cv::Scalar(float(networksLoaded.load()))));
                    } else {
                        results = forward(loaded(networks, path, layout), path, blob, outputs, "the model");
                    }
                } catch (const Failure &error) {
                    failure = error.message;
                } catch (const std::exception &error) {
                    failure = path + ": " + error.what();
                }
            }
            if (!failure.empty()) {
                writeU32(fd, 1);
                writeString(fd, failure);
                continue;
            }
            writeU32(fd, 0);
            writeU32(fd, uint32_t(results.size()));
            for (const auto &result : results) writeBlob(fd, result);
        }
    } catch (const Broken &) {
    }
    ::close(fd);
}

} // namespace

namespace {

/// Whether the batch's inference process runs the networks (MATTEBOX_INFERENCE_SOCKET), and where.
const char *inferenceSocket() {
    const char *socketPath = std::getenv("MATTEBOX_INFERENCE_SOCKET");
    return socketPath && *socketPath ? socketPath : nullptr;
}

/// The networks this thread has loaded: one per thread, file and layout, as cv::dnn::Net is not safe
/// to run from two threads at once.
Networks &threadNetworks() {
    thread_local Networks networks;
    return networks;
}

} // namespace

std::vector<cv::Mat> runNetwork(const std::string &path, const cv::Mat &blob, const std::vector<std::string> &outputs,
                                const char *what, NetworkLayout layout) {
    if (const char *socketPath = inferenceSocket()) return runRemotely(socketPath, path, blob, outputs, what, layout);
    return forward(loaded(threadNetworks(), path, layout), path, blob, outputs, what);
}

void releaseNetwork(const std::string &path, NetworkLayout layout) {
    if (inferenceSocket()) return;
    threadNetworks().erase({path, layout});
}

int loadedNetworkCount() { return networksLoaded.load(); }

void serveInference(int listener) {
    // The batch that started this process ends it; if the batch is killed,
    // this ends within a second. (Not PR_SET_PDEATHSIG: that follows the
    // parent's thread, and the batch starts this from a thread that ends first.)
    const pid_t parent = ::getppid();
    std::thread([parent] {
        while (::getppid() == parent) std::this_thread::sleep_for(std::chrono::seconds(1));
        std::_Exit(0);
    }).detach();
    static std::mutex lock;
    static Networks networks;
    for (;;) {
        const int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            throw Failure{std::string("the inference socket cannot accept: ") + std::strerror(errno)};
        }
        std::thread(serveConnection, fd, std::ref(lock), std::ref(networks)).detach();
    }
}

} // namespace mbx

extern "C" int mbx_cv_serve_inference(int listening_socket, mbx_cv_error *error) {
    return mbx::guarded(error, [&] { mbx::serveInference(listening_socket); });
}

extern "C" int mbx_cv_inference_network_count(const char *socket_path, int *count, mbx_cv_error *error) {
    return mbx::guarded(error, [&] {
        if (!socket_path || !count) throw mbx::Failure{"missing argument"};
        const std::vector<cv::Mat> answer =
            mbx::runRemotely(socket_path, "", cv::Mat(1, 1, CV_32F, cv::Scalar(0)), {}, "the count request",
                             mbx::NetworkLayout::fused);
        *count = answer.empty() ? 0 : int(answer[0].at<float>(0));
    });
}
