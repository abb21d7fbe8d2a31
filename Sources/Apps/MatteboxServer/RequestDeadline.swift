import HTTPTypes
import HummingbirdCore
import NIOCore
import NIOHTTPTypes

/// Limits that hold while a request is still arriving, where Hummingbird's
/// idle timeout does not reach: a client that opens a connection and never
/// finishes the request's head is disconnected after `limit`, and one that
/// sends a head but not the whole body (a body shorter than its length, a
/// chunk announced larger than it is) is answered 408 Request Timeout and
/// disconnected. Between requests on a kept-alive connection the same limit
/// applies to the next head. Responses that stream (the live preview) are not
/// limited: the deadline stops once the request is whole.
final class RequestDeadline: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private enum Waiting { case head, body }

    private let limit: TimeAmount
    private var deadline: Scheduled<Void>?
    /// A response has started for the request being read (then a 408 cannot be sent).
    private var responding = false

    init(limit: TimeAmount) { self.limit = limit }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context, waiting: .head) }
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context, waiting: .head)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { disarm() }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            responding = false
            arm(context, waiting: .body)
        case .body: break
        case .end: disarm()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head: responding = true
        case .body: break
        case .end:
            // The next request on this connection must arrive within the limit too.
            if deadline == nil { arm(context, waiting: .head) }
        }
        context.write(data, promise: promise)
    }

    private func disarm() {
        deadline?.cancel()
        deadline = nil
    }

    private func arm(_ context: ChannelHandlerContext, waiting: Waiting) {
        disarm()
        deadline = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: limit) { [self] in
            deadline = nil
            guard context.channel.isActive else { return }
            if waiting == .body, !responding {
                let head = HTTPResponse(status: .requestTimeout, headerFields: [.connection: "close", .contentLength: "0"])
                context.write(wrapOutboundOut(.head(head)), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
            context.close(promise: nil)
        }
    }
}
