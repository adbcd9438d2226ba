package io.ringwire.transport;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A snapshot of one TCP connection's {@code TCP_INFO} ({@code struct tcp_info} of {@code linux/tcp.h}; man 7 tcp),
 * from {@link RingwireSocketChannel#tcpInfo()}. The accessors are those of Netty's {@code EpollTcpInfo} and
 * {@code IoUringTcpInfo}, by the same names and types, so monitoring code written for those transports reads this one
 * the same way; then the counters later kernels added (bytes acknowledged, received, sent and retransmitted, segments,
 * unsent bytes, minimum RTT, delivery rate, windows). Times are as the kernel gives them: microseconds for
 * {@code rto}, {@code ato}, {@code rtt}, {@code rttvar}, {@code rcvRtt} and {@code minRtt}, milliseconds for the
 * {@code last*} ones. A field the running kernel does not fill reads 0.
 */
public final class RingwireTcpInfo {
    /** The bytes asked for: {@code struct tcp_info} up to {@code tcpi_rcv_wnd} (Linux 5.4 and later fill them all). */
    static final int SIZE = 236;

    private final ByteBuffer info;

    /** @param raw what getsockopt(TCP_INFO) wrote; fewer bytes than {@link #SIZE} leave the rest 0 */
    RingwireTcpInfo(byte[] raw) {
        info = ByteBuffer.allocate(SIZE).order(ByteOrder.nativeOrder());
        info.put(raw, 0, Math.min(raw.length, SIZE)).clear();
    }

    private int u8(int offset) {
        return info.get(offset) & 0xFF;
    }

    private long u32(int offset) {
        return info.getInt(offset) & 0xFFFF_FFFFL;
    }

    private long u64(int offset) {
        return info.getLong(offset);
    }

    /** @return {@code tcpi_state}: 1 ESTABLISHED, 2 SYN_SENT, ..., 8 CLOSE_WAIT, 10 LISTEN (net/tcp_states.h) */
    public int state() {
        return u8(0);
    }

    /** @return {@code tcpi_ca_state}: 0 open, 1 disorder, 2 CWR, 3 recovery, 4 loss */
    public int caState() {
        return u8(1);
    }

    /** @return {@code tcpi_retransmits}: unrecovered RTO timeouts in a row */
    public int retransmits() {
        return u8(2);
    }

    /** @return {@code tcpi_probes}: unanswered zero-window or keepalive probes */
    public int probes() {
        return u8(3);
    }

    /** @return {@code tcpi_backoff} */
    public int backoff() {
        return u8(4);
    }

    /** @return {@code tcpi_options}: TCPI_OPT_TIMESTAMPS 1, SACK 2, WSCALE 4, ECN 8, ECN_SEEN 16, SYN_DATA 32 */
    public int options() {
        return u8(5);
    }

    /** @return {@code tcpi_snd_wscale} */
    public int sndWscale() {
        return u8(6) & 0x0F;
    }

    /** @return {@code tcpi_rcv_wscale} */
    public int rcvWscale() {
        return u8(6) >>> 4;
    }

    /** @return {@code tcpi_rto}, µs */
    public long rto() {
        return u32(8);
    }

    /** @return {@code tcpi_ato}, µs */
    public long ato() {
        return u32(12);
    }

    /** @return {@code tcpi_snd_mss} */
    public long sndMss() {
        return u32(16);
    }

    /** @return {@code tcpi_rcv_mss} */
    public long rcvMss() {
        return u32(20);
    }

    /** @return {@code tcpi_unacked}: segments sent and not acknowledged */
    public long unacked() {
        return u32(24);
    }

    /** @return {@code tcpi_sacked} */
    public long sacked() {
        return u32(28);
    }

    /** @return {@code tcpi_lost} */
    public long lost() {
        return u32(32);
    }

    /** @return {@code tcpi_retrans}: segments retransmitted and not yet acknowledged */
    public long retrans() {
        return u32(36);
    }

    /** @return {@code tcpi_fackets} */
    public long fackets() {
        return u32(40);
    }

    /** @return {@code tcpi_last_data_sent}, ms ago */
    public long lastDataSent() {
        return u32(44);
    }

    /** @return {@code tcpi_last_ack_sent} (the kernel does not keep it: 0) */
    public long lastAckSent() {
        return u32(48);
    }

    /** @return {@code tcpi_last_data_recv}, ms ago */
    public long lastDataRecv() {
        return u32(52);
    }

    /** @return {@code tcpi_last_ack_recv}, ms ago */
    public long lastAckRecv() {
        return u32(56);
    }

    /** @return {@code tcpi_pmtu} */
    public long pmtu() {
        return u32(60);
    }

    /** @return {@code tcpi_rcv_ssthresh} */
    public long rcvSsthresh() {
        return u32(64);
    }

    /** @return {@code tcpi_rtt}: smoothed round-trip time, µs */
    public long rtt() {
        return u32(68);
    }

    /** @return {@code tcpi_rttvar}, µs */
    public long rttvar() {
        return u32(72);
    }

    /** @return {@code tcpi_snd_ssthresh} */
    public long sndSsthresh() {
        return u32(76);
    }

    /** @return {@code tcpi_snd_cwnd}, segments */
    public long sndCwnd() {
        return u32(80);
    }

    /** @return {@code tcpi_advmss} */
    public long advmss() {
        return u32(84);
    }

    /** @return {@code tcpi_reordering} */
    public long reordering() {
        return u32(88);
    }

    /** @return {@code tcpi_rcv_rtt}, µs */
    public long rcvRtt() {
        return u32(92);
    }

    /** @return {@code tcpi_rcv_space} */
    public long rcvSpace() {
        return u32(96);
    }

    /** @return {@code tcpi_total_retrans}: segments retransmitted over the connection's life */
    public long totalRetrans() {
        return u32(100);
    }

    /** @return {@code tcpi_pacing_rate}, bytes/s */
    public long pacingRate() {
        return u64(104);
    }

    /** @return {@code tcpi_bytes_acked}: bytes the peer acknowledged */
    public long bytesAcked() {
        return u64(120);
    }

    /** @return {@code tcpi_bytes_received}: bytes received in order */
    public long bytesReceived() {
        return u64(128);
    }

    /** @return {@code tcpi_segs_out} */
    public long segsOut() {
        return u32(136);
    }

    /** @return {@code tcpi_segs_in} */
    public long segsIn() {
        return u32(140);
    }

    /** @return {@code tcpi_notsent_bytes}: bytes written to the socket and not yet sent */
    public long notsentBytes() {
        return u32(144);
    }

    /** @return {@code tcpi_min_rtt}, µs */
    public long minRtt() {
        return u32(148);
    }

    /** @return {@code tcpi_delivery_rate}, bytes/s */
    public long deliveryRate() {
        return u64(160);
    }

    /** @return {@code tcpi_bytes_sent}, retransmissions included */
    public long bytesSent() {
        return u64(200);
    }

    /** @return {@code tcpi_bytes_retrans} */
    public long bytesRetrans() {
        return u64(208);
    }

    /** @return {@code tcpi_snd_wnd}: the peer's advertised window, bytes */
    public long sndWnd() {
        return u32(228);
    }

    /** @return {@code tcpi_rcv_wnd}: the window this side advertises, bytes */
    public long rcvWnd() {
        return u32(232);
    }

    @Override
    public String toString() {
        return "RingwireTcpInfo[state=" + state() + ", rtt=" + rtt() + "us, rttvar=" + rttvar() + "us, sndCwnd="
            + sndCwnd() + ", unacked=" + unacked() + ", totalRetrans=" + totalRetrans() + ", bytesAcked="
            + bytesAcked() + ", bytesReceived=" + bytesReceived() + ", notsentBytes=" + notsentBytes() + "]";
    }
}
